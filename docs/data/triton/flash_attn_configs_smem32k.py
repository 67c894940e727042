import triton

configs_smem32k = [
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 16}, num_warps=4, num_stages=2),  # best for B16_H32_S512_D128
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64}, num_warps=4, num_stages=1),  # best for B4_H32_S2048_D128, B1_H32_S8192_D128_causal
]
