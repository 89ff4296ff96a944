# The AVX2 copy of the CPU backend's GEMM must not define a global or weak symbol that another
# object could define too: the linker would keep one definition for both, and a CPU without
# AVX2 could then run AVX2 code. Every such symbol must name the renamed Eigen namespace
# (GsrEigenAvx2) or the copy's own entry point; DW.ref.__gxx_personality_v0 is a pointer to
# the C++ runtime's exception personality routine (data, the same in every object). Run with
# -DNM=... -DOBJECTS=... -P.
execute_process(COMMAND ${NM} --defined-only ${OBJECTS} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${OBJECTS}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(checked 0)
set(bad "")
foreach(line IN LISTS lines)
  # "<address> <type> <mangled name>"; an upper-case type is global, weak or unique.
  if(line MATCHES "^[0-9a-fA-F]* ([A-Z]) (.+)$")
    math(EXPR checked "${checked} + 1")
    set(type "${CMAKE_MATCH_1}") # the next MATCHES resets CMAKE_MATCH_*
    set(name "${CMAKE_MATCH_2}")
    if(NOT name MATCHES "GsrEigenAvx2|dense_product_avx2_copy"
       AND NOT name STREQUAL "DW.ref.__gxx_personality_v0")
      string(APPEND bad "\n  ${type} ${name}")
    endif()
  endif()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no global symbols in ${OBJECTS}: is it the AVX2 copy?")
endif()
if(bad)
  message(FATAL_ERROR "symbols the linker could share with baseline code:${bad}")
endif()
message(STATUS "${checked} global or weak symbols, all in the AVX2 copy's own names")
