# CRYPTOACCEL_SANITIZE=address builds everything with ASan+UBSan (errors are
# fatal), =thread with TSan. `make test` runs a separate sanitizer build.
if(CRYPTOACCEL_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(CRYPTOACCEL_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT CRYPTOACCEL_SANITIZE STREQUAL "")
  message(FATAL_ERROR "CRYPTOACCEL_SANITIZE must be empty, address or thread")
endif()
