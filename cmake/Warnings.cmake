# Every target of ours compiles warning-free: with CRYPTOACCEL_WERROR (the
# Makefile's builds and CI) -Werror is applied per target, never to
# third-party code.
function(cryptoaccel_warnings target)
  if(CRYPTOACCEL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wshadow -Wnon-virtual-dtor
                                           -Wold-style-cast -Wcast-align -Wformat=2
                                           # designated initializers leave defaults on purpose
                                           -Wno-missing-field-initializers)
  if(NOT CRYPTOACCEL_SANITIZE STREQUAL "")
    # Under the sanitizers GCC 12 reports -Wmaybe-uninitialized inside
    # libstdc++'s own <regex> and <functional>: false positives that the
    # normal build, which keeps the warning, does not have.
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
endfunction()
