/* A library that needs CRYPTOACCEL_FILLER_BYTES of static TLS
 * (initial-exec), as some dlopen()ed plugins do: static_tls_test.cpp loads
 * such libraries until glibc's reserve for them is used up. */
__attribute__((tls_model("initial-exec"))) __thread char
    cryptoaccel_filler[CRYPTOACCEL_FILLER_BYTES];

char* cryptoaccel_filler_address(void);
char* cryptoaccel_filler_address(void) { return cryptoaccel_filler; }
