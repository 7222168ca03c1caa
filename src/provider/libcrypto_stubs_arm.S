/*
 * One jump per libcrypto function the module calls (libcrypto_functions.def),
 * the 32-bit ARM twin of libcrypto_stubs_x86_64.S, in ARM state: ip (r12,
 * which the procedure call standard leaves to veneers like these) gets the
 * slot's address from a PC-relative offset stored after the stub, and
 * `ldr pc` jumps to the function read from the slot, switching to Thumb
 * when its address says so (bit 0), as every ARMv7 `ldr pc` does. Argument
 * registers and the stack stay as the caller set them.
 */
#define CRYPTOACCEL_LIBCRYPTO_FUNCTION(name)                                  \
  .globl name;                                                                \
  .hidden name;                                                               \
  .type name, %function;                                                      \
  .p2align 4;                                                                 \
  name:                                                                       \
  ldr ip, 1f;                                                                 \
  2: add ip, pc, ip;                                                          \
  ldr pc, [ip];                                                               \
  1: .word cryptoaccel_libcrypto_slots + 4 * cryptoaccel_slot - (2b + 8);     \
  .size name, . - name;                                                       \
  .set cryptoaccel_slot, cryptoaccel_slot + 1;

  .syntax unified
  .arm
  .text
  .set cryptoaccel_slot, 0
#include "libcrypto_functions.def"

  /* Tells the linker that nothing here needs an executable stack. */
  .section .note.GNU-stack, "", %progbits
