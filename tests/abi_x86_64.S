# void aes_gen_abi_call(struct abi_call *c);
#
# Calls c->fn(c->rk, c->iv, c->dst, c->src, c->nblocks) with the SysV
# callee-saved registers rbx, rbp, r12-r15 set to c->in[0..5], then stores
# what the callee left in them to c->out[0..5] and the stack pointer offset
# (rsp after minus rsp before, 0 if preserved) to c->rsp_delta.  The caller's
# own registers are saved and restored around all of it.
#
# struct abi_call layout (8-byte fields): fn, rk, iv, dst, src, nblocks,
# in[6] at 48, out[6] at 96, rsp_delta at 144.
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
    mov %rsp, %rax
    pop %r11                    # the struct pointer pushed above
    sub 144(%r11), %rax
    mov %rax, 144(%r11)
    mov %rbx, 96(%r11)
    mov %rbp, 104(%r11)
    mov %r12, 112(%r11)
    mov %r13, 120(%r11)
    mov %r14, 128(%r11)
    mov %r15, 136(%r11)
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret
    .size aes_gen_abi_call, .-aes_gen_abi_call

    .section .note.GNU-stack, "", @progbits
