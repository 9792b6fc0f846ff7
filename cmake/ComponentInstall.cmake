# Where `cmake --install` puts mca_coll_hieragg.so (README "Install"), chosen by
# HIERAGG_INSTALL:
#   user   (default) HIERAGG_COMPONENT_DIR, by default ~/.openmpi/components of whoever
#          configures the build: Open MPI searches it for that user's jobs only.
#   system Open MPI's own component directory (`ompi_info --path pkglibdir`), which every
#          job of that Open MPI searches: no path option anywhere; needs root.
# The component is install component `mca` (`cmake --install build --component mca`
# installs it alone). Included from src/ompi/CMakeLists.txt; sets HIERAGG_OMPI_PREFIX and
# HIERAGG_OMPI_COMPONENT_DIR (empty when ompi_info cannot say) for DebPackage.cmake.
set(HIERAGG_INSTALL user CACHE STRING
    "Where cmake --install puts the component: user (HIERAGG_COMPONENT_DIR) or system (Open MPI's component directory)")
set_property(CACHE HIERAGG_INSTALL PROPERTY STRINGS user system)
set(HIERAGG_COMPONENT_DIR "$ENV{HOME}/.openmpi/components" CACHE PATH
    "Where cmake --install puts mca_coll_hieragg.so with HIERAGG_INSTALL=user (a directory Open MPI searches)")
if(NOT HIERAGG_INSTALL MATCHES "^(user|system)$")
  message(FATAL_ERROR "HIERAGG_INSTALL must be 'user' or 'system', not '${HIERAGG_INSTALL}'")
endif()

# Open MPI's component directory and prefix, from the ompi_info of the Open MPI we build against
# (next to its mpicc; on Debian 12 .../openmpi/lib/openmpi3, on Debian 13 .../openmpi/lib/openmpi40).
get_filename_component(_mpi_bindir "${MPI_C_COMPILER}" DIRECTORY)
find_program(HIERAGG_OMPI_INFO ompi_info HINTS ${_mpi_bindir})
set(HIERAGG_OMPI_PREFIX "")
set(HIERAGG_OMPI_COMPONENT_DIR "")
if(HIERAGG_OMPI_INFO)
  foreach(_what prefix pkglibdir)
    execute_process(COMMAND ${HIERAGG_OMPI_INFO} --path ${_what} --parsable
                    OUTPUT_VARIABLE _line OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    string(REGEX REPLACE "^path:${_what}:" "" _dir "${_line}")
    if(IS_ABSOLUTE "${_dir}" AND IS_DIRECTORY "${_dir}")
      set(_ompi_${_what} "${_dir}")
    endif()
  endforeach()
  if(_ompi_prefix AND _ompi_pkglibdir)
    set(HIERAGG_OMPI_PREFIX "${_ompi_prefix}")
    set(HIERAGG_OMPI_COMPONENT_DIR "${_ompi_pkglibdir}")
  endif()
endif()

if(HIERAGG_INSTALL STREQUAL "system")
  if(NOT HIERAGG_OMPI_COMPONENT_DIR)
    message(FATAL_ERROR "HIERAGG_INSTALL=system: cannot find Open MPI's component directory "
                        "(ompi_info '${HIERAGG_OMPI_INFO}' --path pkglibdir); install openmpi-bin")
  endif()
  set(_component_dest "${HIERAGG_OMPI_COMPONENT_DIR}")
else()
  set(_component_dest "${HIERAGG_COMPONENT_DIR}")
endif()
install(TARGETS mca_coll_hieragg LIBRARY DESTINATION "${_component_dest}" COMPONENT mca)
message(STATUS "hieragg: cmake --install puts the component into ${_component_dest} (HIERAGG_INSTALL=${HIERAGG_INSTALL})")
