/*
 * One jump per libcrypto function the module calls (libcrypto_functions.def),
 * the AArch64 twin of libcrypto_stubs_x86_64.S: the slot's address in x16
 * (adrp and its low 12 bits), the function's address from the slot, a
 * branch to it. x16 is IP0, which the procedure call standard leaves to
 * veneers exactly like these; every argument register and the stack stay
 * as the caller set them, so one stub serves any signature.
 */
#define CRYPTOACCEL_LIBCRYPTO_FUNCTION(name)                                  \
  .globl name;                                                                \
  .hidden name;                                                               \
  .type name, %function;                                                      \
  .p2align 4;                                                                 \
  name:                                                                       \
  adrp x16, cryptoaccel_libcrypto_slots + 8 * cryptoaccel_slot;               \
  ldr x16, [x16, :lo12:cryptoaccel_libcrypto_slots + 8 * cryptoaccel_slot];   \
  br x16;                                                                     \
  .size name, . - name;                                                       \
  .set cryptoaccel_slot, cryptoaccel_slot + 1;

  .text
  .set cryptoaccel_slot, 0
#include "libcrypto_functions.def"

  /* Tells the linker that nothing here needs an executable stack. */
  .section .note.GNU-stack, "", %progbits
