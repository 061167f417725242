"""Bug: --fp16 (on by default here, as in the report's command line) casts the video transformer to float16, but the text encoder is loaded in its checkpoint's bfloat16 and its context embeddings reach the cross-attention unconverted; the key projection refuses BFloat16 against Half.

family: precision
category: configuration
expected: RuntimeError
message: mat1 and mat2 must have the same dtype
source: https://github.com/deepbeepmeep/Wan2GP/issues/158
"""
import argparse

import torch
import torch.nn as nn

TEXT_ENCODER_DTYPE = torch.bfloat16


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fp16", action="store_true", default=True, help="force fp16 for the transformer")
    parser.add_argument("--prompt-len", type=int, default=12)
    parser.add_argument("--frames", type=int, default=4)
    parser.add_argument("--dim", type=int, default=32)
    return parser.parse_args()


class T5Encoder(nn.Module):
    def __init__(self, vocab=200, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        return self.proj(self.embed(ids))


class CrossAttentionBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)

    def forward(self, x, context):
        q, k, v = self.q(x), self.k(context), self.v(context)  # bug: bf16 context into the fp16 key projection
        attn = torch.softmax(q @ k.transpose(1, 2) / q.shape[-1] ** 0.5, dim=-1)
        return x + attn @ v


class WanTransformer(nn.Module):
    def __init__(self, dim, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([CrossAttentionBlock(dim) for _ in range(depth)])

    def forward(self, latents, context):
        for block in self.blocks:
            latents = block(latents, context)
        return latents


def generate(args):
    torch.manual_seed(0)
    text_encoder = T5Encoder(dim=args.dim).to(TEXT_ENCODER_DTYPE).eval()
    transformer_dtype = torch.float16 if args.fp16 else torch.bfloat16
    transformer = WanTransformer(args.dim).to(transformer_dtype).eval()
    ids = torch.randint(0, 200, (1, args.prompt_len))
    with torch.no_grad():
        context = text_encoder(ids)  # cause: bfloat16 embeddings, never cast to the transformer's dtype
        latents = torch.randn(1, args.frames, args.dim).to(transformer_dtype)
        out = transformer(latents, context)
    print(out.shape, out.dtype)


if __name__ == "__main__":
    generate(parse_args())
