# The Debian package: `cpack -G DEB` in the build directory writes
# hieragg_<version>-1+openmpi<series>_<arch>.deb (README "Install"). It holds
#   - the component in Open MPI's own component directory (whatever HIERAGG_INSTALL says:
#     install component `deb`, which only the package installs),
#   - hieragg-plan and hieragg-calibrate in /usr/bin (install component `tools`),
#   - README.md and docs/ in /usr/share/doc/hieragg (install component `doc`),
# and depends on the Open MPI library package of the series it was built against, that series
# only (a component built for 4.1 does not load into 5.0, nor the reverse), plus what
# dpkg-shlibdeps finds for the rest (libfabric, libstdc++, ...).
# Included from src/ompi/CMakeLists.txt after ComponentInstall.cmake.
set(HIERAGG_PACKAGE_MAINTAINER "hieragg maintainers <hieragg@localhost>" CACHE STRING
    "Maintainer field of the .deb (cpack -G DEB)")

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/hieragg COMPONENT doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/hieragg/docs COMPONENT doc)

# The package installs below Open MPI's prefix, so the component's directory is relative to it.
set(_why_no_package "")
if(NOT HIERAGG_OMPI_COMPONENT_DIR)
  set(_why_no_package "ompi_info did not say where Open MPI's components are")
else()
  file(RELATIVE_PATH _component_rel "${HIERAGG_OMPI_PREFIX}" "${HIERAGG_OMPI_COMPONENT_DIR}")
  if(_component_rel MATCHES "^\\.\\./")
    set(_why_no_package "Open MPI's component directory ${HIERAGG_OMPI_COMPONENT_DIR} is not below its prefix ${HIERAGG_OMPI_PREFIX}")
  endif()
endif()

# The Debian package that holds the libmpi we link, and the series of its headers
# (HIERAGG_OMPI_VERSION, src/ompi/CMakeLists.txt): Depends: that package, >= this
# release and below the next series.
find_program(HIERAGG_DPKG_QUERY dpkg-query)
set(_mpi_lib "")
foreach(_lib IN LISTS MPI_C_LIBRARIES)
  if(_lib MATCHES "/libmpi\\.so$")
    file(REAL_PATH "${_lib}" _mpi_lib)
  endif()
endforeach()
if(NOT _why_no_package)
  if(NOT HIERAGG_DPKG_QUERY OR NOT _mpi_lib)
    set(_why_no_package "no dpkg-query, or no libmpi.so among MPI_C_LIBRARIES (${MPI_C_LIBRARIES})")
  else()
    execute_process(COMMAND ${HIERAGG_DPKG_QUERY} -S "${_mpi_lib}" OUTPUT_VARIABLE _owner
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
    string(REGEX REPLACE "^([a-z0-9.+-]+)(:[a-z0-9]+)?: .*$" "\\1" _ompi_package "${_owner}")
    if(NOT _rc EQUAL 0 OR NOT _ompi_package MATCHES "^[a-z0-9][a-z0-9.+-]+$")
      set(_why_no_package "no Debian package holds ${_mpi_lib}")
    endif()
  endif()
endif()
if(_why_no_package)
  message(STATUS "hieragg: no .deb (cpack -G DEB): ${_why_no_package}")
  return()
endif()

install(TARGETS mca_coll_hieragg LIBRARY DESTINATION "${_component_rel}" COMPONENT deb EXCLUDE_FROM_ALL)
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _series "${HIERAGG_OMPI_VERSION}")
set(_major "${CMAKE_MATCH_1}")
math(EXPR _next_minor "${CMAKE_MATCH_2} + 1")
set(_next_series "${CMAKE_MATCH_1}.${_next_minor}")

# Open MPI 5 (Debian 13): Debian's PMIx parameter file sets the generic name
# mca_base_component_path to PMIx's plugin directory, and PMIx hands it to every rank as
# OMPI_MCA_mca_base_component_path, so the ranks would never search Open MPI's component
# directory. The package's postinst/postrm (cmake/deb/) divert and rewrite that file while
# hieragg is installed (README "Install" says why this file). Open MPI 4.1's mpirun (ORTE)
# does not pass PMIx's file settings on: no maintainer scripts there.
set(HIERAGG_PMIX_PARAMS "")
if(_major GREATER_EQUAL 5)
  execute_process(COMMAND ${HIERAGG_DPKG_QUERY} -S "*/pmix-mca-params.conf" OUTPUT_VARIABLE _owners
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE "\n" ";" _owners "${_owners}")
  foreach(_line IN LISTS _owners)
    string(REGEX REPLACE "^[^:]+(:[a-z0-9]+)?: " "" _file "${_line}")
    if(EXISTS "${_file}")
      file(STRINGS "${_file}" _generic REGEX "^[ \t]*mca_base_component_path[ \t]*=")
      if(_generic)
        list(APPEND HIERAGG_PMIX_PARAMS "${_file}")
      endif()
    endif()
  endforeach()
  list(LENGTH HIERAGG_PMIX_PARAMS _n_params)
  if(_n_params EQUAL 1)
    foreach(_script postinst postrm)
      configure_file(${PROJECT_SOURCE_DIR}/cmake/deb/${_script}.in ${CMAKE_BINARY_DIR}/deb/${_script} @ONLY
                     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                      WORLD_READ WORLD_EXECUTE)
    endforeach()
    set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CMAKE_BINARY_DIR}/deb/postinst;${CMAKE_BINARY_DIR}/deb/postrm")
    set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
    message(STATUS "hieragg: the .deb rewrites ${HIERAGG_PMIX_PARAMS} while installed (cmake/deb/postinst.in)")
  elseif(_n_params GREATER 1)
    message(WARNING "hieragg: more than one PMIx parameter file sets mca_base_component_path "
                    "(${HIERAGG_PMIX_PARAMS}): the .deb leaves them alone, and mpirun's ranks will "
                    "not find the installed component without --mca mca_base_component_path")
  endif()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hieragg)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${HIERAGG_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "hierarchical collectives for Open MPI ${_series} (coll component)")
# The body (CPack puts the summary above it and formats the lines for the control file).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "hieragg is an Open MPI collective component (coll framework,
mca_coll_hieragg.so) built for Open MPI ${HIERAGG_OMPI_VERSION}. It splits every
communicator into subspaces (NUMA domain, node, switch, or a given grouping) plus a
leader space and runs every collective piecewise over point-to-point messages.

The component is installed in Open MPI's component directory: any MPI program gets
it with 'mpirun --mca coll hieragg' or '--mca coll_hieragg_priority 100', and
'ompi_info --param coll hieragg --level 9' lists its parameters. The planner
hieragg-plan and the cost calibration hieragg-calibrate are included.")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_RELEASE "1+openmpi${_series}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX "${HIERAGG_OMPI_PREFIX}")
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "${_ompi_package} (>= ${HIERAGG_OMPI_VERSION}), ${_ompi_package} (<< ${_next_series}~)")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS openmpi-bin)   # mpirun, for the applications and hieragg-calibrate
set(CPACK_STRIP_FILES ON)
# One package made of the install components the package needs (not `mca`, the user's choice).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL deb tools doc)
set(CPACK_OUTPUT_FILE_PREFIX "${CMAKE_BINARY_DIR}/package")
include(CPack)
message(STATUS "hieragg: cpack -G DEB: component in ${HIERAGG_OMPI_COMPONENT_DIR}, "
               "Depends: ${CPACK_DEBIAN_PACKAGE_DEPENDS} + shlibdeps")
