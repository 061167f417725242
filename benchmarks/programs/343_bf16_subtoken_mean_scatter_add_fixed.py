"""Fixed twin of 343_bf16_subtoken_mean_scatter_add_bug.py: the mask is cast to the hidden states' dtype before it is scatter-added into the count buffer.

family: precision
category: mixed-precision
expected: success
source: https://github.com/flairNLP/flair/pull/3651
"""
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class EmbedderConfig:
    vocab_size: int = 40
    hidden: int = 16
    torch_dtype: torch.dtype = torch.bfloat16


class TinyTransformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.hidden)
        self.layer = nn.TransformerEncoderLayer(cfg.hidden, nhead=2, dim_feedforward=32, batch_first=True)

    def forward(self, input_ids):
        return self.layer(self.embed(input_ids))


def load_embedder(cfg):
    model = TinyTransformer(cfg)
    return model.to(dtype=cfg.torch_dtype).eval()


def mean_pool_words(hidden_states, word_ids, mask, n_words):
    b, _, d = hidden_states.shape
    sums = torch.zeros(b, n_words, d, dtype=hidden_states.dtype)
    sums.scatter_add_(1, word_ids.unsqueeze(-1).expand(-1, -1, d), hidden_states * mask.unsqueeze(-1).to(hidden_states.dtype))
    counts = torch.zeros(b, n_words, dtype=hidden_states.dtype)
    counts.scatter_add_(1, word_ids, mask.to(hidden_states.dtype))
    return sums / counts.clamp(min=1).unsqueeze(-1)


def embed_sentences(model, input_ids, word_ids, mask, n_words):
    with torch.no_grad():
        hidden_states = model(input_ids)
        return mean_pool_words(hidden_states, word_ids, mask, n_words)


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = EmbedderConfig()
    model = load_embedder(cfg)
    input_ids = torch.randint(1, cfg.vocab_size, (3, 8))
    word_ids = torch.tensor([[0, 0, 1, 2, 2, 2, 3, 4]] * 3)
    mask = torch.ones(3, 8, dtype=torch.bool)
    mask[2, 6:] = False
    words = embed_sentences(model, input_ids, word_ids, mask, n_words=5)
    print(words.shape, words.dtype)
