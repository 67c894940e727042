# Honest-measurement audits (issue 5): fingerprint injection audit, inert-parameter analysis,
# infeasible regions, node effects, defensible-winner test. Included from
# coordinator/CMakeLists.txt after fleetsweep_coordinator is defined.
target_sources(fleetsweep_coordinator PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/audit.cc
  ${CMAKE_CURRENT_LIST_DIR}/audit_inert.cc
  ${CMAKE_CURRENT_LIST_DIR}/node_effects.cc
  ${CMAKE_CURRENT_LIST_DIR}/sweep_result.cc
  ${CMAKE_CURRENT_LIST_DIR}/warm_state.cc
  ${CMAKE_CURRENT_LIST_DIR}/winner.cc)

fleetsweep_test(audit_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/audit_test.cc
  LIBS fleetsweep::coordinator)
fleetsweep_test(node_effects_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/node_effects_test.cc
  LIBS fleetsweep::coordinator)
fleetsweep_test(aggregator_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/aggregator_test.cc
  LIBS fleetsweep::coordinator)
fleetsweep_test(dispatch_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/dispatch_test.cc
  LIBS fleetsweep::coordinator fleetsweep::test_support)
fleetsweep_test(warm_state_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/warm_state_test.cc
  LIBS fleetsweep::coordinator)
fleetsweep_test(incremental_aggregate_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/incremental_aggregate_test.cc LIBS fleetsweep::coordinator)
fleetsweep_test(results_writer_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/results_writer_test.cc
  LIBS fleetsweep::coordinator)
