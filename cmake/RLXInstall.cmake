# What `cmake --install build --prefix P` puts under P:
#
#   bin/      rlxc, rlx-opt, rlx-run, rlx-import-onnx (RPATH $ORIGIN/../lib, plus LLVM's
#             library folder for libMLIR)
#   lib/      librlxrt.so.<soversion> (and its links), librlxcheckgrads.a,
#             librlxfrontend.a and the compiler's static libraries it needs
#   include/  rlx/runtime.h, runtime.hpp, abi.h, dtype.hpp, check_grads.hpp,
#             rlx/frontend.h, rlx/frontend/*.h
#   lib/cmake/rlx/      rlxConfig.cmake, its version file and the exported
#                       targets: rlx::runtime, rlx::abi, rlx::check_grads
#                       (rlxRuntimeTargets), rlx::frontend (rlxFrontendTargets,
#                       loaded only where MLIR 22 is found)
#   lib/pkgconfig/      rlx-runtime.pc
#
# Everything is relocatable: the package config and the .pc file find the
# prefix from their own location, so the prefix given at install time need
# not be the one configured.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RLX_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/rlx")

# --- Tools -----------------------------------------------------------------
# Installed binaries find librlxrt beside them and libMLIR where LLVM put it
# (a system path); nothing points into the build tree.
foreach(tool rlxc rlx-opt rlx-run rlx-import-onnx)
  set_target_properties(${tool} PROPERTIES
    INSTALL_RPATH "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
    INSTALL_RPATH_USE_LINK_PATH ON)
endforeach()
install(TARGETS rlxc rlx-opt rlx-run rlx-import-onnx
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)

# --- Runtime ---------------------------------------------------------------
set_target_properties(rlxrt PROPERTIES EXPORT_NAME runtime)
set_target_properties(rlx-abi PROPERTIES EXPORT_NAME abi)
set_target_properties(rlxcheckgrads PROPERTIES EXPORT_NAME check_grads)
target_include_directories(rlx-abi INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

install(TARGETS rlxrt rlx-abi rlxcheckgrads EXPORT rlxRuntimeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
    NAMELINK_COMPONENT dev
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
# The MPI shim lies beside librlxrt, where the runtime looks for it.
if(TARGET rlx-mpi)
  install(TARGETS rlx-mpi
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/rlx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(EXPORT rlxRuntimeTargets NAMESPACE rlx::
  DESTINATION ${RLX_INSTALL_CMAKEDIR} COMPONENT dev)

# --- Frontend --------------------------------------------------------------
# librlxfrontend is static: a consumer links it with the compiler's static
# libraries (RLXCompiler and what it needs) and with MLIR/LLVM from the
# system's MLIR package, which rlxConfig.cmake finds. The in-project
# libraries it reaches are collected here, so a new compiler library needs
# no line in this file.
function(rlx_collect_project_libraries target out)
  set(seen ${${out}})
  get_target_property(aliased ${target} ALIASED_TARGET)
  if(aliased)
    set(target ${aliased})
  endif()
  if(target IN_LIST seen)
    return()
  endif()
  list(APPEND seen ${target})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    set(properties INTERFACE_LINK_LIBRARIES)
  else()
    set(properties LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
  endif()
  foreach(property ${properties})
    get_target_property(deps ${target} ${property})
    if(NOT deps)
      continue()
    endif()
    foreach(dep ${deps})
      # $<LINK_ONLY:X> and MLIR's aggregate filters wrap plain names.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
      string(REGEX REPLACE "^\\$<\\$<NOT:.*>:([^<>]*)>$" "\\1" dep "${dep}")
      if(NOT TARGET "${dep}")
        continue()
      endif()
      get_target_property(imported ${dep} IMPORTED)
      if(NOT imported)
        rlx_collect_project_libraries(${dep} seen)
      endif()
    endforeach()
  endforeach()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

set(rlx_frontend_closure)
rlx_collect_project_libraries(rlxfrontend rlx_frontend_closure)
list(REMOVE_ITEM rlx_frontend_closure rlxfrontend rlxrt rlx-abi)
set_target_properties(rlxfrontend PROPERTIES EXPORT_NAME frontend)
target_include_directories(rlxfrontend INTERFACE
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
install(TARGETS rlxfrontend ${rlx_frontend_closure} EXPORT rlxFrontendTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT frontend)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/frontend/include/rlx
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT frontend
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")
install(EXPORT rlxFrontendTargets NAMESPACE rlx::
  DESTINATION ${RLX_INSTALL_CMAKEDIR} COMPONENT frontend)

# --- Package config --------------------------------------------------------
set(RLX_MLIR_DIR "${MLIR_DIR}")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/rlxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/rlxConfig.cmake
  INSTALL_DESTINATION ${RLX_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/rlxConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  # 0.x: a new minor version may break the API.
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cmake/rlxConfig.cmake
  ${PROJECT_BINARY_DIR}/cmake/rlxConfigVersion.cmake
  DESTINATION ${RLX_INSTALL_CMAKEDIR} COMPONENT dev)

# --- pkg-config --------------------------------------------------------------
file(RELATIVE_PATH RLX_PC_PREFIX_FROM_PCDIR
  "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
configure_file(${PROJECT_SOURCE_DIR}/cmake/rlx-runtime.pc.in
  ${PROJECT_BINARY_DIR}/cmake/rlx-runtime.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/rlx-runtime.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# --- Debian package ------------------------------------------------------------
# cd build && cpack -G DEB: rlx_<version>_amd64.deb with everything above,
# installed under /usr. The tools and the frontend need LLVM/MLIR 22, lld,
# libomp and clang's builtins from Debian's packages (apt.llvm.org on
# Debian 12); building against rlx::frontend also needs libmlir-22-dev.
set(CPACK_PACKAGE_NAME rlx)
set(CPACK_PACKAGE_VENDOR rlx)
set(CPACK_PACKAGE_CONTACT "rlx developers <rlx@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "rlx: ahead-of-time ML graph compiler on MLIR (rlxc, rlx-run, librlxrt)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libmlir-22, libllvm22, lld-22, libomp-22-dev, libclang-rt-22-dev, libonnx1, libprotobuf32, libc6, libstdc++6")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libmlir-22-dev")
include(CPack)
