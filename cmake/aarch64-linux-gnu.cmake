# Cross-building pmcfuse for aarch64 (Debian's gcc-aarch64-linux-gnu) against
# an arm64 sysroot of Debian packages (scripts/pmu-vm.sh sysroot unpacks one
# into build/pmu/sysroot; PMCF_SYSROOT names another):
#   cmake -S . -B build/pmu/arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# The OpenMP examples are built with clang-16 --target=aarch64-linux-gnu
# against the sysroot's libomp (PMCF_CLANG16_FLAGS).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(PMCF_TRIPLE aarch64-linux-gnu)

if(NOT PMCF_SYSROOT)
  if(DEFINED ENV{PMCF_SYSROOT})
    set(PMCF_SYSROOT $ENV{PMCF_SYSROOT})
  else()
    get_filename_component(PMCF_SYSROOT ${CMAKE_CURRENT_LIST_DIR}/../build/pmu/sysroot ABSOLUTE)
  endif()
endif()
if(NOT EXISTS ${PMCF_SYSROOT}/usr/include/${PMCF_TRIPLE})
  message(FATAL_ERROR "no arm64 sysroot in ${PMCF_SYSROOT}: run scripts/pmu-vm.sh sysroot")
endif()
# try_compile runs in other folders: pass the sysroot on
set(CMAKE_TRY_COMPILE_PLATFORM_VARIABLES PMCF_SYSROOT)

set(CMAKE_C_COMPILER ${PMCF_TRIPLE}-gcc)
set(CMAKE_SYSROOT ${PMCF_SYSROOT})
set(CMAKE_FIND_ROOT_PATH ${PMCF_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_LIBRARY_ARCHITECTURE ${PMCF_TRIPLE})
# the sysroot's libraries find their own dependencies at link time
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${PMCF_SYSROOT}/usr/lib/${PMCF_TRIPLE}:${PMCF_SYSROOT}/lib/${PMCF_TRIPLE}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")

# pkg-config reads the sysroot's .pc files only
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${PMCF_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR} ${PMCF_SYSROOT}/usr/lib/${PMCF_TRIPLE}/pkgconfig:${PMCF_SYSROOT}/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

set(PMCF_CLANG16_FLAGS --target=${PMCF_TRIPLE} --sysroot=${PMCF_SYSROOT}
    -L${PMCF_SYSROOT}/usr/lib/llvm-16/lib CACHE STRING "clang-16's flags for the OpenMP examples")
