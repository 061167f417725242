"""Bug: the fine-tuning script's --bf16 flag is on by default and casts the model to bfloat16, but the prompt embeddings built by a helper are float32.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/mosaicml/llm-foundry/issues/333
"""
import argparse

import torch
import torch.nn as nn


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--bf16", action="store_true", default=True)
    p.add_argument("--d-model", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=6)
    return p.parse_args()


class TinyBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


def soft_prompt(n_tokens, d):
    return torch.randn(1, n_tokens, d) * 0.02


def main():
    args = parse_args()
    block = TinyBlock(args.d_model)
    if args.bf16:
        block = block.to(torch.bfloat16)  # cause: parameters in bfloat16
    prompt = soft_prompt(args.seq_len, args.d_model)
    out = block.ff(prompt)  # bug: float32 prompt into bfloat16 Linear
    print(out.shape)


if __name__ == "__main__":
    main()
