"""Fixed twin of 79_bf16_flag_inputs_bug.py: the prompt is cast to the block's dtype.

family: precision
expected: success
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
        block = block.to(torch.bfloat16)
    prompt = soft_prompt(args.seq_len, args.d_model)
    prompt = prompt.to(next(block.parameters()).dtype)
    out = block.ff(prompt)
    print(out.shape)


if __name__ == "__main__":
    main()
