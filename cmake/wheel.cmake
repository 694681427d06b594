# The build scikit-build-core drives (pip install ., pip wheel ., pip install -e .; SKBUILD is set).
#
# * Portable: no -march=native unless asked for (TCORE_NATIVE_ARCH, pyproject.toml).
# * Self-contained: CMake runs the generator itself (tasks/generate.py: codegen, version.h, and the
#   HIP translation for a ROCm build) into the build tree, nothing into the source tree; its inputs
#   are configure dependencies, so an edit to the YAML, the generator or version.txt reruns it
#   through ninja's reconfigure (which rewrites only the files whose text changes).
# * Installed into the package folder (wheel.install-dir = "tcore"): _C and the type stubs there,
#   libtcore in lib/ (the existing install rules), headers and the CMake package beside it.

set(TCORE_NATIVE_ARCH OFF CACHE BOOL "Compile the kernels for this machine's CPU (-march=native)")
set(TCORE_GEN_DIR "${CMAKE_CURRENT_BINARY_DIR}/generated" CACHE PATH "Root of the generated sources")
set(TCORE_PYTHON_PACKAGE_DIR "${CMAKE_CURRENT_BINARY_DIR}/python/tcore" CACHE PATH
    "Where the extension and libtcore are linked (installed from there into the wheel)")

if(NOT Python_EXECUTABLE)
  find_package(Python 3.10 REQUIRED COMPONENTS Interpreter)
endif()
set(_tcore_generate --out "${TCORE_GEN_DIR}" --cache-dir "${CMAKE_CURRENT_BINARY_DIR}/codegen-cache")
set(_tcore_generator_inputs
  "${CMAKE_CURRENT_SOURCE_DIR}/csrc/native/native_functions.yaml" "${CMAKE_CURRENT_SOURCE_DIR}/csrc/native/tags.yaml"
  "${CMAKE_CURRENT_SOURCE_DIR}/version.txt" "${CMAKE_CURRENT_SOURCE_DIR}/tasks/generate.py"
  "${CMAKE_CURRENT_SOURCE_DIR}/scripts/gen_version_header.py")
file(GLOB _tcore_more_inputs "${CMAKE_CURRENT_SOURCE_DIR}/csrc/autograd/*.yaml"
  "${CMAKE_CURRENT_SOURCE_DIR}/codegen/*.py" "${CMAKE_CURRENT_SOURCE_DIR}/codegen/api/*.py"
  "${CMAKE_CURRENT_SOURCE_DIR}/codegen/templates/*.j2")
list(APPEND _tcore_generator_inputs ${_tcore_more_inputs})
if(USE_ROCM)
  list(APPEND _tcore_generate --hip)
  file(GLOB_RECURSE _tcore_hip_inputs "${CMAKE_CURRENT_SOURCE_DIR}/hipify/*.py" "${CMAKE_CURRENT_SOURCE_DIR}/hipify/*.yaml"
    "${CMAKE_CURRENT_SOURCE_DIR}/csrc/*.cu" "${CMAKE_CURRENT_SOURCE_DIR}/csrc/*.cuh" "${CMAKE_CURRENT_SOURCE_DIR}/csrc/cuda/*.cpp")
  list(APPEND _tcore_generator_inputs ${_tcore_hip_inputs})
endif()
execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env PYTHONDONTWRITEBYTECODE=1 "${Python_EXECUTABLE}" -m tasks.generate ${_tcore_generate}
  WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" RESULT_VARIABLE _tcore_generated)
if(NOT _tcore_generated EQUAL 0)
  message(FATAL_ERROR "tcore: code generation failed (the error is above)")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_tcore_generator_inputs})

# after the targets exist: what the wheel holds besides libtcore, headers and the CMake package
function(tcore_install_python_package)
  install(TARGETS _C LIBRARY DESTINATION .)
  file(GLOB stubs "${TCORE_GEN_DIR}/python/tcore/*.pyi")
  install(FILES ${stubs} DESTINATION .)
endfunction()
