# SPDX-License-Identifier: Apache-2.0
# void aes_gen_abi_call(struct abi_call *c);
#
# Calls c->fn(c->args[0..5]) (rdi rsi rdx rcx r8 r9) with the SysV
# callee-saved registers rbx, rbp, r12-r15 set to c->in[0..5], then stores
# what the callee left in them to c->out[0..5], the stack pointer offset
# (rsp after minus rsp before, 0 if preserved) to c->rsp_delta, the
# caller-saved general-purpose registers to c->scratch, every vector
# register to c->vregs (64 bytes each: xmm0-15, ymm0-15 or zmm0-31 as
# c->flags allows), the opmasks k0-k7 to c->kregs and XINUSE (XGETBV with
# ECX=1) to c->xinuse, as it was before the call to c->xinuse_before.  The
# caller's own registers are saved and restored around all of it.
#
# struct abi_call layout (8-byte fields): fn 0, args[6] 8, in[6] 56, out[6]
# 104, rsp_delta 152, flags 160, xinuse 168, xinuse_before 176, scratch[9]
# 184 (rax rcx rdx rsi rdi r8 r9 r10 r11 after the call), kregs[8] 256,
# vregs[32][64] 320 (64-byte aligned).
# flags: 1 the CPU has AVX (dump ymm), 2 AVX-512 (dump zmm), 4 XGETBV ECX=1,
# 8 call with every vector register all ones (dirty upper halves; else all
# zero), 16 AVX-512BW (kmovq; else kmovw, 16 bits of each opmask).  The
# opmasks start at zero.

    .set ARGS, 8
    .set IN, 56
    .set OUT, 104
    .set RSP_DELTA, 152
    .set FLAGS, 160
    .set XINUSE, 168
    .set XINUSE_BEFORE, 176
    .set SCRATCH, 184
    .set KREGS, 256
    .set VREGS, 320

    .text
    .globl aes_gen_abi_call
    .type aes_gen_abi_call, @function
aes_gen_abi_call:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    push %rdi                   # 7 pushes: rsp is 16-byte aligned for the call
    mov %rdi, %r11
    # Every vector register starts known: all ones with flag 8 (dirty upper
    # halves), else zero; nothing the caller left can be taken for the callee's.
    testq $2, FLAGS(%r11)
    jnz 3f
    testq $1, FLAGS(%r11)
    jnz 7f
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    pxor %xmm\n, %xmm\n
    .endr
    jmp 1f
7:
    vzeroall
    testq $8, FLAGS(%r11)
    jz 1f
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vpcmpeqd %ymm\n, %ymm\n, %ymm\n
    .endr
    jmp 1f
3:
    vzeroall
    .irp n, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    vpxord %zmm\n, %zmm\n, %zmm\n
    .endr
    kxorw %k0, %k0, %k0
    .irp n, 1,2,3,4,5,6,7
    kxorw %k\n, %k\n, %k\n
    .endr
    testq $8, FLAGS(%r11)
    jz 1f
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    vpternlogd $0xff, %zmm\n, %zmm\n, %zmm\n
    .endr
1:
    testq $4, FLAGS(%r11)
    jz 4f
    mov $1, %ecx
    xgetbv
    mov %eax, XINUSE_BEFORE(%r11)
    mov %edx, XINUSE_BEFORE+4(%r11)
4:
    mov IN(%r11), %rbx
    mov IN+8(%r11), %rbp
    mov IN+16(%r11), %r12
    mov IN+24(%r11), %r13
    mov IN+32(%r11), %r14
    mov IN+40(%r11), %r15
    mov %rsp, RSP_DELTA(%r11)
    mov 0(%r11), %rax
    mov ARGS(%r11), %rdi
    mov ARGS+8(%r11), %rsi
    mov ARGS+16(%r11), %rdx
    mov ARGS+24(%r11), %rcx
    mov ARGS+32(%r11), %r8
    mov ARGS+40(%r11), %r9
    call *%rax
    push %r11                   # the caller-saved registers as the callee left them
    push %r10
    push %r9
    push %r8
    push %rdi
    push %rsi
    push %rdx
    push %rcx
    push %rax
    mov 72(%rsp), %r11          # the struct pointer pushed before the call
    .irp n, 0,1,2,3,4,5,6,7,8
    pop %rax
    mov %rax, SCRATCH+8*\n(%r11)
    .endr
    mov %rsp, %rax
    pop %r11
    sub RSP_DELTA(%r11), %rax
    mov %rax, RSP_DELTA(%r11)
    mov %rbx, OUT(%r11)
    mov %rbp, OUT+8(%r11)
    mov %r12, OUT+16(%r11)
    mov %r13, OUT+24(%r11)
    mov %r14, OUT+32(%r11)
    mov %r15, OUT+40(%r11)
    testq $4, FLAGS(%r11)       # XINUSE before anything else could touch it
    jz 2f
    mov $1, %ecx
    xgetbv
    mov %eax, XINUSE(%r11)
    mov %edx, XINUSE+4(%r11)
2:
    testq $2, FLAGS(%r11)
    jnz .Ldump_zmm
    testq $1, FLAGS(%r11)
    jnz .Ldump_ymm
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    movdqu %xmm\n, VREGS+64*\n(%r11)
    .endr
    jmp .Ldone
.Ldump_ymm:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vmovdqu %ymm\n, VREGS+64*\n(%r11)
    .endr
    vzeroupper
    jmp .Ldone
.Ldump_zmm:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    vmovdqu64 %zmm\n, VREGS+64*\n(%r11)
    .endr
    testq $16, FLAGS(%r11)
    jz 5f
    .irp n, 0,1,2,3,4,5,6,7
    kmovq %k\n, KREGS+8*\n(%r11)
    .endr
    jmp 6f
5:
    .irp n, 0,1,2,3,4,5,6,7
    kmovw %k\n, KREGS+8*\n(%r11)
    .endr
6:
    vzeroupper
.Ldone:
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret
    .size aes_gen_abi_call, .-aes_gen_abi_call

# Kernels that break the rules on purpose, so the checks are seen to fire:
# round key 1's first word left in eax, round key 2 in xmm5, the first
# plaintext block in xmm7, round key 1's first 8 bytes in k3 (AVX-512BW),
# and an AVX kernel that clears what it used but has no vzeroupper.
    .globl aes_gen_abi_leaky_gp
    .type aes_gen_abi_leaky_gp, @function
aes_gen_abi_leaky_gp:
    mov 16(%rdi), %eax
    ret
    .size aes_gen_abi_leaky_gp, .-aes_gen_abi_leaky_gp

    .globl aes_gen_abi_leaky_xmm
    .type aes_gen_abi_leaky_xmm, @function
aes_gen_abi_leaky_xmm:
    movdqu 32(%rdi), %xmm5
    ret
    .size aes_gen_abi_leaky_xmm, .-aes_gen_abi_leaky_xmm

    .globl aes_gen_abi_leaky_plain
    .type aes_gen_abi_leaky_plain, @function
aes_gen_abi_leaky_plain:
    movdqu (%rcx), %xmm7
    ret
    .size aes_gen_abi_leaky_plain, .-aes_gen_abi_leaky_plain

    .globl aes_gen_abi_leaky_kreg
    .type aes_gen_abi_leaky_kreg, @function
aes_gen_abi_leaky_kreg:
    kmovq 16(%rdi), %k3
    ret
    .size aes_gen_abi_leaky_kreg, .-aes_gen_abi_leaky_kreg

    .globl aes_gen_abi_no_vzeroupper
    .type aes_gen_abi_no_vzeroupper, @function
aes_gen_abi_no_vzeroupper:
    vmovdqu (%rcx), %ymm1
    vpxor %xmm1, %xmm1, %xmm1
    ret
    .size aes_gen_abi_no_vzeroupper, .-aes_gen_abi_no_vzeroupper

    .section .note.GNU-stack, "", @progbits
