/* A library named like libcrypto (libcrypto.so.99) with none of its
 * functions: what cryptoaccel.so meets if OpenSSL's core lives in a libcrypto
 * that lacks what the module calls (libcrypto_binding_test.cpp). */
int cryptoaccel_fake_core_function(void);
int cryptoaccel_fake_core_function(void) { return 0; }
