# `make package` (cpack -G DEB in the build folder): three Debian packages,
# split as Debian splits a library:
#   libpmcfuse1     the shared library and the collector libpmcfuse-ompt.so
#   pmcfuse         the command, pmcfuse-categorize-kernels, the man pages
#   libpmcfuse-dev  headers, libpmcfuse.so and .a, pmcfuse.pc, the CMake config
# Installed under /usr; the command finds the library through its RPATH
# ($ORIGIN/../lib) and the collector relative to itself, so an unpacked
# package (dpkg-deb -x into any folder) runs as installed
# (tests/pkg/install_tour.sh).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pmcfuse)
set(CPACK_PACKAGE_VENDOR "pmcfuse")
set(CPACK_PACKAGE_CONTACT "pmcfuse maintainers <pmcfuse@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "complete per-task hardware-event profiles by fusing executions")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib bin dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libpmcfuse.so.1 of the command is in libpmcfuse1 (a component dependency)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_LIB_PACKAGE_NAME libpmcfuse${PMCF_SOVERSION})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_BIN_PACKAGE_NAME pmcfuse)
# man-db: `pmcfuse help VERB`; the rest is found by dpkg-shlibdeps
set(CPACK_DEBIAN_BIN_PACKAGE_RECOMMENDS "man-db")
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libpmcfuse-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
  "libsqlite3-dev, libjansson-dev, libpfm4-dev, libpapi-dev, libdw-dev, libelf-dev, libzydis-dev, nettle-dev")
set(CPACK_COMPONENT_LIB_DESCRIPTION "pmcfuse library and OpenMP (OMPT) collector")
set(CPACK_COMPONENT_BIN_DESCRIPTION "pmcfuse command: record, fuse, show, export and report profiles")
set(CPACK_COMPONENT_DEV_DESCRIPTION "pmcfuse library: headers, static library, pkg-config and CMake files")
set(CPACK_COMPONENT_BIN_DEPENDS lib)
set(CPACK_COMPONENT_DEV_DEPENDS lib)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
include(CPack)
