# `make install`: the library, the public headers (API and driver SDK), the
# command, a pkg-config file and a CMake package (find_package(cryptoaccel)).
include(CMakePackageConfigHelpers)

install(TARGETS cryptoaccel EXPORT cryptoaccelTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cryptoaccel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp" PATTERN "*.def")
install(FILES ${PROJECT_BINARY_DIR}/include/cryptoaccel/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cryptoaccel)
install(TARGETS cryptoaccel-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cryptoaccel)
install(EXPORT cryptoaccelTargets NAMESPACE cryptoaccel:: DESTINATION ${config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cryptoaccelConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cryptoaccelConfig.cmake
                              INSTALL_DESTINATION ${config_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cryptoaccelConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cryptoaccelConfig.cmake
              ${PROJECT_BINARY_DIR}/cryptoaccelConfigVersion.cmake
        DESTINATION ${config_dir})

# The prefix as seen from the installed .pc file: lib/pkgconfig is two
# folders down, a multiarch lib/x86_64-linux-gnu/pkgconfig three.
file(RELATIVE_PATH CRYPTOACCEL_PC_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig"
     "${CMAKE_INSTALL_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/cryptoaccel.pc.in ${PROJECT_BINARY_DIR}/cryptoaccel.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cryptoaccel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
