# The ROCm backend: the GPU sources of csrc/ (the .cu kernels and the runtime in csrc/cuda/)
# as `doit hipify` translated them under TCORE_HIP_DIR, compiled by hipcc for AMD GPUs.
#
# Each translated file is one Ninja edge (hipcc -MD writes its header dependencies), so
# editing one .cu re-translates that file alone (doit hipify) and recompiles only the HIP
# objects whose translated source or headers changed. hipcc is driven through custom
# commands, as FindHIP's hip_add_library does, rather than enable_language(HIP): CMake's
# HIP language needs a full ROCm install (hip-lang, amd_comgr, device libs), Debian's
# hipcc package does not give it, and the objects only need hipcc and libamdhip64.

set(TCORE_HIP_DIR "${TCORE_GEN_DIR}/hip" CACHE PATH "The translated sources (doit hipify, scripts/build_amd.py)")
# Named architectures need no GPU at build time (gfx90a: MI200; add gfx942 for MI300 with a
# clang newer than Debian 12's 15).
set(TCORE_HIP_ARCHITECTURES "gfx90a" CACHE STRING "AMD GPU architectures (hipcc --offload-arch)")
find_library(TCORE_AMDHIP64 amdhip64)
if(NOT TCORE_AMDHIP64)
  message(FATAL_ERROR "tcore: hipcc is installed but libamdhip64 is not (apt-get install libamdhip64-dev)")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E env HIP_PLATFORM=amd "${TCORE_HIPCC}" --version
  OUTPUT_VARIABLE _tcore_hipcc_version ERROR_QUIET)
string(REGEX MATCH "HIP version: ([0-9.]+)" _tcore_hipcc_version "${_tcore_hipcc_version}")
set(TCORE_ROCM_WHY "hipcc ${CMAKE_MATCH_1} found; architectures ${TCORE_HIP_ARCHITECTURES}")

# csrc path -> translated path: the rule of hipify/paths.py hip_path (cuda -> hip, CUDA -> HIP, .cu -> .hip)
function(_tcore_hip_path rel out_var)
  string(REPLACE "cuda" "hip" rel "${rel}")
  string(REPLACE "CUDA" "HIP" rel "${rel}")
  string(REGEX REPLACE "\\.cu$" ".hip" rel "${rel}")
  set(${out_var} "${rel}" PARENT_SCOPE)
endfunction()

set(TCORE_HIP_SOURCES "")
foreach(rel IN LISTS TCORE_GPU_SOURCES)  # (CMakeLists.txt)
  _tcore_hip_path("${rel}" hip_rel)
  if(NOT EXISTS "${TCORE_HIP_DIR}/${hip_rel}")
    message(FATAL_ERROR "tcore: ${TCORE_HIP_DIR}/${hip_rel} (the translation of csrc/${rel}) is missing; "
                        "run `doit hipify` (or python scripts/build_amd.py) first")
  endif()
  list(APPEND TCORE_HIP_SOURCES "${hip_rel}")
endforeach()

# tcore_add_rocm_objects(target): compile TCORE_HIP_SOURCES with hipcc, with the target's
# definitions and include folders (the translated headers first), and link them into it.
function(tcore_add_rocm_objects target)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags UNIX_COMMAND "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${config}}")
  set(arch_flags "")
  foreach(arch IN LISTS TCORE_HIP_ARCHITECTURES)
    list(APPEND arch_flags "--offload-arch=${arch}")
  endforeach()
  # ccache when it is the launcher; never distcc (hipcc is not a compiler distcc hosts run),
  # so CCACHE_PREFIX=distcc is unset for these commands
  set(launcher "")
  if(TCORE_CCACHE AND "${CMAKE_CXX_COMPILER_LAUNCHER}" STREQUAL "${TCORE_CCACHE}")
    set(launcher "${TCORE_CCACHE}")
  endif()
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(objects "")
  # hipcc's offload driver leaves an empty folder per compilation in TMPDIR: keep them in the build tree
  set(hip_tmp "${CMAKE_CURRENT_BINARY_DIR}/rocm/tmp")
  file(MAKE_DIRECTORY "${hip_tmp}")
  foreach(hip_rel IN LISTS TCORE_HIP_SOURCES)
    set(src "${TCORE_HIP_DIR}/${hip_rel}")
    set(obj "${CMAKE_CURRENT_BINARY_DIR}/rocm/${hip_rel}.o")
    get_filename_component(obj_dir "${obj}" DIRECTORY)
    file(MAKE_DIRECTORY "${obj_dir}")
    add_custom_command(OUTPUT "${obj}"
      COMMAND "${CMAKE_COMMAND}" -E env --unset=CCACHE_PREFIX HIP_PLATFORM=amd "TMPDIR=${hip_tmp}" ${launcher} "${TCORE_HIPCC}"
              -x hip -std=c++17 -fPIC ${flags} ${arch_flags}
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>"
              "-I${TCORE_HIP_DIR}" "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
              -MD -MF "${obj}.d" -c "${src}" -o "${obj}"
      DEPENDS "${src}"
      DEPFILE "${obj}.d"
      COMMENT "Building HIP object rocm/${hip_rel}.o"
      COMMAND_EXPAND_LISTS VERBATIM)
    list(APPEND objects "${obj}")
  endforeach()
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(${target} PRIVATE ${objects})
  target_link_libraries(${target} PRIVATE "${TCORE_AMDHIP64}")
endfunction()
