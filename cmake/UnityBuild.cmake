# Unity ("jumbo") builds for the targets whose many sources each parse the
# same heavy headers (gtest, CLI11, nlohmann::json, fmt, the library's
# API): CMake compiles them in batches of a few sources per translation
# unit, so those headers are parsed once per batch instead of once per
# file. The library and the provider stay one file per unit: their
# sources keep helpers of the same name in anonymous namespaces, which
# is what file-local means. Off with -DCRYPTOACCEL_UNITY=OFF (to find
# which file a diagnostic comes from, or to compile one file alone).
option(CRYPTOACCEL_UNITY "Compile the tests' and the command's sources in batches" ON)
set(CRYPTOACCEL_UNITY_BATCH 8 CACHE STRING "Sources per unity batch")

# cryptoaccel_unity(TARGET [ALONE source...]): the sources after ALONE
# keep a unit of their own (file-local helpers whose names another file of
# the target uses too).
function(cryptoaccel_unity target)
  cmake_parse_arguments(PARSE_ARGV 1 UNITY "" "" "ALONE")
  if(CRYPTOACCEL_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${CRYPTOACCEL_UNITY_BATCH})
    if(UNITY_ALONE)
      set_source_files_properties(${UNITY_ALONE} TARGET_DIRECTORY ${target}
                                  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endif()
endfunction()
