# Reads LeakSanitizer reports (mixed with other output) and prints the leaks that
# hieragg's code made; exits 1 if there is one. A leak is hieragg's when the first
# frame of its allocation stack that is not the allocator, the C library or the
# C++ library (operator new, std:: containers inlined from /usr/include/c++) is a
# source line in this tree (variable `root`: the project directory).
# Everything else (Open MPI, PMIx, hwloc, components unloaded at MPI_Finalize and
# so shown as <unknown module>) is Open MPI's own and only counted.
# This replaces LSan's suppression files, which match a pattern against every
# frame and so would also hide hieragg's leaks made in calls from Open MPI.
# usage: awk -v root=/path/to/project -f lsan-ours.awk OUTPUT
function decide(line,    i) {
    if (line ~ /libsanitizer|__interceptor_|libstdc\+\+|\/usr\/include\/c\+\+|operator new|libio\/|strdup|asprintf|libc\.so/)
        return ""
    # Ours means a symbolized source line in this tree ("in f() ROOT/src/x.cpp:12";
    # everything here is built with -g). A bare "(module+offset)" is not trusted: after
    # Open MPI unloads a component LSan may attribute its addresses to a wrong module.
    i = index(line, root)
    if (i > 1 && substr(line, i - 1, 1) != "(" && substr(line, i) ~ /^[^ ()+]*:[0-9]+/) return "ours"
    return "theirs"
}
/^(Direct|Indirect) leak of / { inblock = 1; verdict = ""; block = $0; next }
inblock && /^ *#[0-9]+ 0x/ {
    block = block "\n" $0
    if ($1 != "#0" && verdict == "") verdict = decide($0)
    next
}
inblock {
    # blank line: end of this leak's stack
    if (verdict == "ours") { ++ours; print block "\n" } else ++theirs
    inblock = 0
}
END {
    if (inblock) { if (verdict == "ours") { ++ours; print block } else ++theirs }
    printf "lsan-ours: %d leak record(s) from hieragg code, %d from Open MPI and its libraries (ignored)\n", ours, theirs
    exit ours > 0
}
