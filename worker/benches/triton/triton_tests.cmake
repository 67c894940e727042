# CPU tests of the Triton benchmarks' GPU-free logic (no torch, no triton: they run in CI).
# Included from the top-level CMakeLists.txt when tests are built.
if(NOT EXISTS /usr/bin/python3)
  message(WARNING "/usr/bin/python3 not found: Triton benchmark CPU tests not registered")
  return()
endif()
foreach(t moe_algo tune_report)
  add_test(NAME triton_${t}_test
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/${t}_test.py)
  set_tests_properties(triton_${t}_test PROPERTIES TIMEOUT 60)
endforeach()
# The generated per-M specs must pass `fleetsweep validate` and prune by shared memory.
add_test(NAME triton_moe_specs_test
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../../../scripts/triton_moe_specs_test.py)
set_tests_properties(triton_moe_specs_test PROPERTIES TIMEOUT 120
  ENVIRONMENT "FLEETSWEEP_BIN=${CMAKE_BINARY_DIR}/bin;FLEETSWEEP_SRC=${CMAKE_SOURCE_DIR}")
# scripts/triton_tune.py's GPU-free logic: its package imports, halving and the grid on a fake
# harness, the vLLM export.
add_test(NAME triton_tune_test
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../../../scripts/triton_tune_test.py)
set_tests_properties(triton_tune_test PROPERTIES TIMEOUT 60)
# The benchmark authors' helper (fleetsweep_bench.py): both modes and take_device().
add_test(NAME fleetsweep_bench_py_test
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/../python/fleetsweep_bench_test.py)
set_tests_properties(fleetsweep_bench_py_test PROPERTIES TIMEOUT 60)
