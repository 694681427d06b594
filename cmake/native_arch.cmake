# tcore_native_arch_flags(<out-var>): the flags -march=native stands for on this machine.
#
# GCC resolves -march=native where it compiles. With distcc that is another host, and with a
# shared compile cache an object made on one CPU would be served to another: both are wrong
# code. So GCC's own expansion (-march=<cpu>, the -m<isa>/-mno-<isa> switches, cache sizes,
# -mtune=<cpu>) is taken here, on the configuring machine, and written into the commands.
# Other compilers keep -march=native.
function(tcore_native_arch_flags out)
  set(flags -march=native)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    execute_process(
      COMMAND "${CMAKE_CXX_COMPILER}" -march=native -x c++ -E -v -
      INPUT_FILE /dev/null OUTPUT_QUIET ERROR_VARIABLE verbose RESULT_VARIABLE rc)
    string(REGEX MATCH "cc1plus [^\n]*" cc1 "${verbose}")
    if(rc EQUAL 0 AND cc1 MATCHES " -march=([^ ]+)")
      set(cpu "${CMAKE_MATCH_1}")
      string(REGEX MATCHALL " -m[a-z0-9._=-]+| --param [a-z0-9-]+=[0-9]+" found "${cc1}")
      set(flags "")
      foreach(f IN LISTS found)
        string(STRIP "${f}" f)
        string(REPLACE "--param " "--param=" f "${f}")
        list(APPEND flags "${f}")
      endforeach()
      list(LENGTH flags n)
      message(STATUS "tcore: -march=native here means -march=${cpu} (${n} flags, fixed at configure time)")
    endif()
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
