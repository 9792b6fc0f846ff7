// PmlTransport posting straight into the PML (abi.h pml_isend): what the shim's
// isend_released, irecv_released and test did, done in the core from the request's layout.
// A fake PML hands out requests laid out as the shim says (done word, status error, release
// function); a message that ended inside its post comes back released with its status, one
// that did not is returned and released by the test that finds it ended, each exactly once;
// a post that fails returns its code; a local-group message and a table without the PML's
// entry points still go through the shim's callbacks; the PML's empty request (abi.h
// request_empty, Open MPI's &ompi_request_empty) is done at once and never released.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "../../src/transports/pml/PmlTransport.hpp"

namespace hieragg {
namespace {

struct FakeRequest {
    long pad = 7;
    const void* volatile done = nullptr;     // the done word
    int error = 0;                           // the status's error
    hieragg_request_free_fn release = nullptr;  // req_free
};
// The fake's requests are what the PML's handles point to.
ompi_request_t* handleOf(FakeRequest* r) { return reinterpret_cast<ompi_request_t*>(r); }
FakeRequest* fakeOf(ompi_request_t* r) { return reinterpret_cast<FakeRequest*>(r); }

const int kDone = 1;  // its address is the done word's "ended" value
std::vector<FakeRequest*> released;
int postRc = 0;
bool endAtOnce = false;
FakeRequest* returnEmpty = nullptr;  // what the post returns instead of a new request
int endError = 0;
int shimCalls = 0;
std::vector<FakeRequest> pool(8);
size_t used = 0;

int releaseFake(ompi_request_t** req) {
    released.push_back(fakeOf(*req));
    *req = nullptr;  // Open MPI sets MPI_REQUEST_NULL
    return 0;
}

int post(ompi_request_t** req) {
    if (postRc != 0) return postRc;
    if (returnEmpty) {
        *req = handleOf(returnEmpty);
        return 0;
    }
    FakeRequest* r = &pool.at(used++);
    r->done = endAtOnce ? &kDone : nullptr;
    r->error = endError;
    r->release = releaseFake;
    *req = handleOf(r);
    return 0;
}
int fakeIsend(const void*, size_t, ompi_datatype_t*, int, int, hieragg_pml_send_mode mode, ompi_communicator_t*,
              ompi_request_t** req) {
    EXPECT_EQ(mode, 5u);  // the shim's MCA_PML_BASE_SEND_STANDARD, passed through
    return post(req);
}
int fakeIrecv(void*, size_t, ompi_datatype_t*, int, int, ompi_communicator_t*, ompi_request_t** req) {
    return post(req);
}
int shimIsend(void*, int, const void*, size_t, void*, int, int, void** req) {
    ++shimCalls;
    *req = nullptr;
    return 0;
}
int shimIrecv(void*, int, void*, size_t, void*, int, int, void** req) {
    ++shimCalls;
    *req = nullptr;
    return 0;
}
int shimTest(void*, int* done) {
    ++shimCalls;
    *done = 1;
    return 0;
}

hieragg_transport table(bool direct) {
    hieragg_transport t{};
    t.isend_released = shimIsend;
    t.irecv_released = shimIrecv;
    t.test = shimTest;
    t.request_done_offset = offsetof(FakeRequest, done);
    t.request_done_value = &kDone;
    if (direct) {
        t.pml_isend = fakeIsend;
        t.pml_irecv = fakeIrecv;
        t.pml_send_standard = 5;
        t.request_error_offset = offsetof(FakeRequest, error);
        t.request_free_offset = offsetof(FakeRequest, release);
    }
    return t;
}

void reset() {
    released.clear();
    postRc = 0;
    endAtOnce = false;
    endError = 0;
    shimCalls = 0;
    used = 0;
    returnEmpty = nullptr;
}

TEST(PmlTransportDirect, AMessageThatEndedInItsPostComesBackReleasedWithItsStatus) {
    reset();
    PmlTransport tr(table(true));
    endAtOnce = true;
    endError = 15;
    void* req = &pool[7];
    EXPECT_EQ(tr.isendReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 15);
    EXPECT_EQ(req, nullptr);
    ASSERT_EQ(released.size(), 1u);
    EXPECT_EQ(released[0], &pool[0]);
    endError = 0;
    EXPECT_EQ(tr.irecvReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(req, nullptr);
    ASSERT_EQ(released.size(), 2u);
    EXPECT_EQ(released[1], &pool[1]);
    EXPECT_EQ(shimCalls, 0);
}

TEST(PmlTransportDirect, APendingMessageIsReleasedOnceByTheTestThatFindsItEnded) {
    reset();
    PmlTransport tr(table(true));
    void* req = nullptr;
    ASSERT_EQ(tr.irecvReleased(nullptr, false, nullptr, 0, nullptr, 2, -3, &req), 0);
    ASSERT_EQ(req, &pool[0]);
    bool done = true;
    EXPECT_EQ(tr.test(req, done), 0);
    EXPECT_FALSE(done);
    EXPECT_TRUE(released.empty());
    pool[0].error = 13;  // it ends with an error
    pool[0].done = &kDone;
    EXPECT_EQ(tr.test(req, done), 13);
    EXPECT_TRUE(done);
    ASSERT_EQ(released.size(), 1u);
    EXPECT_EQ(released[0], &pool[0]);
    EXPECT_EQ(shimCalls, 0);
}

// ob1's inline send returns &ompi_request_empty (ended, success, its req_free only nulls the
// handle): with the shim's request_empty it is done at once, its status success, never
// released; without it (a table naming no empty request) the same request is released as
// any ended one.
TEST(PmlTransportDirect, ThePmlsEmptyRequestIsDoneAndNeverReleased) {
    reset();
    FakeRequest empty;
    empty.done = &kDone;
    empty.release = releaseFake;
    hieragg_transport t = table(true);
    t.request_empty = handleOf(&empty);
    PmlTransport tr(t);
    returnEmpty = &empty;
    void* req = &pool[7];
    EXPECT_EQ(tr.isendReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(req, nullptr);
    EXPECT_EQ(tr.irecvReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(req, nullptr);
    EXPECT_TRUE(released.empty());
    EXPECT_EQ(shimCalls, 0);
    ASSERT_NE(tr.direct(), nullptr);
    req = &pool[7];
    EXPECT_EQ(tr.direct()->post(false, nullptr, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(req, nullptr);
    EXPECT_TRUE(released.empty());

    PmlTransport plain(table(true));  // no request_empty: released as any ended request
    EXPECT_EQ(plain.isendReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(req, nullptr);
    ASSERT_EQ(released.size(), 1u);
    EXPECT_EQ(released[0], &empty);
}

TEST(PmlTransportDirect, AFailedPostReturnsItsCodeAndReleasesNothing) {
    reset();
    PmlTransport tr(table(true));
    postRc = 17;
    void* req = nullptr;
    EXPECT_EQ(tr.isendReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 17);
    EXPECT_EQ(req, nullptr);
    EXPECT_TRUE(released.empty());
}

TEST(PmlTransportDirect, LocalGroupMessagesAndTablesWithoutThePmlGoThroughTheShim) {
    reset();
    PmlTransport direct(table(true));
    void* req = nullptr;
    EXPECT_EQ(direct.isendReleased(nullptr, true, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(direct.irecvReleased(nullptr, true, nullptr, 0, nullptr, 1, -3, &req), 0);
    EXPECT_EQ(shimCalls, 2);
    EXPECT_EQ(used, 0u);
    PmlTransport shim(table(false));
    EXPECT_EQ(shim.isendReleased(nullptr, false, nullptr, 0, nullptr, 1, -3, &req), 0);
    bool done = false;
    EXPECT_EQ(shim.test(&pool[0], done), 0);
    EXPECT_TRUE(done);
    EXPECT_EQ(shimCalls, 4);
    EXPECT_EQ(used, 0u);
    EXPECT_TRUE(released.empty());
}

}  // namespace
}  // namespace hieragg
