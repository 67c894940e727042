import triton

configs = [
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 32}, num_warps=4, num_stages=3),  # best for B16_H32_S512_D128
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 64}, num_warps=8, num_stages=3),  # best for B4_H32_S2048_D128
    triton.Config({'BLOCK_M': 128, 'BLOCK_N': 32}, num_warps=4, num_stages=3),  # best for B1_H32_S8192_D128_causal
]
