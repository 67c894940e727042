import triton

configs_smem48k = [
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 32}, num_warps=4, num_stages=2),  # best for B16_H32_S512_D128, B4_H32_S2048_D128
    triton.Config({'BLOCK_M': 64, 'BLOCK_N': 128}, num_warps=4, num_stages=1),  # best for B1_H32_S8192_D128_causal
]
