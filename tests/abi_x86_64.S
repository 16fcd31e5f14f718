# SPDX-License-Identifier: Apache-2.0
# void aes_gen_abi_call(struct abi_call *c);
#
# Calls c->fn(c->rk, c->iv, c->dst, c->src, c->nblocks) with the SysV
# callee-saved registers rbx, rbp, r12-r15 set to c->in[0..5], then stores
# what the callee left in them to c->out[0..5], the stack pointer offset
# (rsp after minus rsp before, 0 if preserved) to c->rsp_delta, every vector
# register to c->vregs (64 bytes each: xmm0-15, ymm0-15 or zmm0-31 as
# c->flags allows) and XINUSE (XGETBV with ECX=1) to c->xinuse.  The caller's
# own registers are saved and restored around all of it.
#
# struct abi_call layout (8-byte fields): fn, rk, iv, dst, src, nblocks,
# in[6] at 48, out[6] at 96, rsp_delta at 144, flags at 152, xinuse at 160,
# scratch[9] at 168 (rax rcx rdx rsi rdi r8 r9 r10 r11 after the call),
# vregs[32][64] at 256 (64-byte aligned).
# flags: 1 the CPU has AVX (dump ymm), 2 AVX-512 (dump zmm), 4 XGETBV ECX=1,
# 8 call with the upper halves of ymm0-15 dirty (all ones).

    .set FLAGS, 152
    .set XINUSE, 160
    .set SCRATCH, 168
    .set VREGS, 256

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
    testq $1, FLAGS(%r11)
    jz 1f
    vzeroupper                  # start from clean upper state
    testq $8, FLAGS(%r11)
    jz 1f
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
    vpcmpeqd %ymm\n, %ymm\n, %ymm\n
    .endr
1:
    mov 48(%r11), %rbx
    mov 56(%r11), %rbp
    mov 64(%r11), %r12
    mov 72(%r11), %r13
    mov 80(%r11), %r14
    mov 88(%r11), %r15
    mov %rsp, 144(%r11)
    mov 0(%r11), %rax
    mov 8(%r11), %rdi
    mov 16(%r11), %rsi
    mov 24(%r11), %rdx
    mov 32(%r11), %rcx
    mov 40(%r11), %r8
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
    sub 144(%r11), %rax
    mov %rax, 144(%r11)
    mov %rbx, 96(%r11)
    mov %rbp, 104(%r11)
    mov %r12, 112(%r11)
    mov %r13, 120(%r11)
    mov %r14, 128(%r11)
    mov %r15, 136(%r11)
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
# one leaves round key 1's first word in eax, the other round key 2 in xmm5.
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

    .section .note.GNU-stack, "", @progbits
