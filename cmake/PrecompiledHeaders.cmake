# Precompiled headers for the targets with many sources that share heavy
# headers (gtest, CLI11, nlohmann::json, fmt, the standard library): each
# source then loads them instead of parsing them again, which is most of
# its compile time. Off with -DCRYPTOACCEL_PCH=OFF (a compiler or ccache
# setup that does not want them); the code compiles the same either way,
# since every source still includes what it uses.
option(CRYPTOACCEL_PCH "Precompile the heavy shared headers" ON)

function(cryptoaccel_precompile target)
  if(CRYPTOACCEL_PCH)
    target_precompile_headers(${target} PRIVATE ${ARGN})
  endif()
endfunction()

# The standard headers nearly every source of ours includes.
set(CRYPTOACCEL_PCH_STD <algorithm> <array> <atomic> <chrono> <cstdint> <cstring> <functional>
                        <map> <memory> <mutex> <optional> <span> <string> <string_view> <thread>
                        <vector>)
