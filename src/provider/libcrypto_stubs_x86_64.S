/*
 * One jump per libcrypto function the module calls (libcrypto_functions.def):
 * `EVP_CIPHER_fetch: jmp *slots[i]`. The stubs are hidden, so the module's
 * own calls bind to them at link time and the module needs no libcrypto.so
 * of any version; libcrypto_binding.cpp fills the slots from the libcrypto
 * that loaded the module. A jump leaves every argument register and the
 * stack as the caller set them, so one stub serves any signature.
 */
#define CRYPTOACCEL_LIBCRYPTO_FUNCTION(name)                                  \
  .globl name;                                                                \
  .hidden name;                                                               \
  .type name, @function;                                                      \
  .p2align 4;                                                                 \
  name:                                                                       \
  endbr64;                                                                    \
  jmp *cryptoaccel_libcrypto_slots + 8 * cryptoaccel_slot(%rip);              \
  .size name, . - name;                                                       \
  .set cryptoaccel_slot, cryptoaccel_slot + 1;

  .text
  .set cryptoaccel_slot, 0
#include "libcrypto_functions.def"

  /* Tells the linker that nothing here needs an executable stack. */
  .section .note.GNU-stack, "", @progbits
