# fleetsweep_report: the HTML report (report.h), vLLM exports (export_vllm.h) and the Redis
# follower (watch.h) behind `fleetsweep report|export|watch`. Depends on common only (not on
# fleetsweep_coordinator), so the coordinator may call WriteReport().
# Included from coordinator/CMakeLists.txt after add_executable(fleetsweep ...):
#   include(${CMAKE_CURRENT_SOURCE_DIR}/report/report.cmake)
set(_fs_report_dir ${CMAKE_CURRENT_LIST_DIR})
add_library(fleetsweep_report STATIC
  ${_fs_report_dir}/export_moe.cc
  ${_fs_report_dir}/export_vllm.cc
  ${_fs_report_dir}/html_util.cc
  ${_fs_report_dir}/report.cc
  ${_fs_report_dir}/report_data.cc
  ${_fs_report_dir}/report_html.cc
  ${_fs_report_dir}/report_panels.cc
  ${_fs_report_dir}/report_sections.cc
  ${_fs_report_dir}/sweep_inputs.cc
  ${_fs_report_dir}/sweep_list.cc
  ${_fs_report_dir}/svg.cc
  ${_fs_report_dir}/svg_parallel.cc
  ${_fs_report_dir}/watch.cc)
add_library(fleetsweep::report ALIAS fleetsweep_report)
target_link_libraries(fleetsweep_report
  PUBLIC fleetsweep::common nlohmann_json::nlohmann_json
  PRIVATE yaml-cpp)
if(TARGET fleetsweep)
  target_link_libraries(fleetsweep PRIVATE fleetsweep::report)
endif()
