# Install layout and packages. Included once from the top-level CMakeLists.txt, after the
# targets, so CPackConfig.cmake lands in the top of the build tree:
#
#   cmake --install build/release --prefix ~/.local      # the GNUInstallDirs layout
#   cpack --config build/release/CPackConfig.cmake       # DEB and TGZ (installer/package_check.sh)
#
# Layout under the prefix: bin/gsr, bin/gsr-studio, libexec/gsr-studio/gsr-kernel-worker (with
# the GPU backend), share/gsr-studio/samples (core/), share/doc/gsr-studio (README.md and the
# licence as copyright), and for the desktop: share/applications, share/metainfo,
# share/mime/packages, share/icons/hicolor.
# gsr and gsr-studio find the sample through ../share/gsr-studio/samples next to themselves
# (core/util/resources.cpp), so the same tree works from /usr, /usr/local, ~/.local or an
# unpacked tarball.
#
# CUDA policy: gpu/ links the runtime statically (CUDA::cudart_static), which loads the
# driver's libcuda.so.1 at run time; nothing here installs a shared library, so neither
# libcudart nor libcuda is ever in a package, and the package does not depend on the driver.
# installer/package_check.sh fails the build if a packaged binary needs either library.

set(GSR_APP_ID io.github.gsrstudio.GsrStudio)
set(GSR_PACKAGE_MAINTAINER "The GSR Studio developers" CACHE STRING
    "Maintainer field of the .deb (\"Name <email>\")")

# ---- desktop integration: only with the GUI, which is what it launches -------------------
if(GSR_BUILD_GUI)
  set(_gsr_desktop ${PROJECT_SOURCE_DIR}/resources/desktop)
  install(FILES ${_gsr_desktop}/${GSR_APP_ID}.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${_gsr_desktop}/${GSR_APP_ID}.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${_gsr_desktop}/${GSR_APP_ID}.mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME ${GSR_APP_ID}.xml)
  # The PNGs are checked in (resources/icons/render_pngs.sh), so no SVG renderer is needed.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/icons/hicolor
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons
          FILES_MATCHING PATTERN "${GSR_APP_ID}.png" PATTERN "${GSR_APP_ID}.svg")
endif()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gsr-studio)
# Debian's policy wants the licence as doc/PACKAGE/copyright.
install(FILES ${PROJECT_SOURCE_DIR}/docs/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gsr-studio
        RENAME copyright)

# ---- CPack: one package, gsr-studio, as .deb and .tar.gz -----------------------------------
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_PACKAGE_NAME gsr-studio)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The GSR Studio developers")
set(CPACK_PACKAGE_CONTACT "${GSR_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "desktop workbench for circuit netlists, their graphs and graph neural networks")
# Lines of at most 80 columns, as Debian's package tools display them.
set(CPACK_PACKAGE_DESCRIPTION
    "GSR Studio reads ISCAS bench, BLIF, AIGER, structural Verilog, Liberty, LEF,\n"
    "DEF and SPICE netlists, builds a circuit graph, computes learning targets,\n"
    "trains graph neural networks (including grouped reversible ones) and finds\n"
    "communities and layouts. It ships the gsr command-line tool and the\n"
    "gsr-studio desktop application.")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" _gsr_platform)
set(CPACK_PACKAGE_FILE_NAME "gsr-studio-${PROJECT_VERSION}-${_gsr_platform}")
set(CPACK_PACKAGE_CHECKSUM SHA256)
# Release binaries carry symbols; users do not need them and they triple the package.
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# Only what `cmake --install` lays out goes in; no source package (it could sweep up build
# trees), and the test data of ../shared/data is never installed by any rule.
set(CPACK_SOURCE_GENERATOR "")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION electronics)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies come from dpkg-shlibdeps (needs the packages dpkg-dev and file). Qt's
# platform plugins are dlopened, so shlibdeps cannot see them: name them by hand.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(GSR_BUILD_GUI)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
endif()
# The icon, menu and MIME caches are refreshed by dpkg triggers of hicolor-icon-theme,
# desktop-file-utils and shared-mime-info, so the package needs no maintainer scripts.

include(CPack)
