"""Bug: the transformer embedder is loaded in bfloat16 to save memory, and the subtoken-to-word mean pooling counts subtokens per word by scatter-adding mask.float() into a count buffer created in the hidden states' dtype; scatter_add refuses a float32 source for a bfloat16 buffer.

family: precision
category: mixed-precision
expected: RuntimeError
message: scatter(): Expected self.dtype to be equal to src.dtype
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
    counts.scatter_add_(1, word_ids, mask.float())  # bug: float32 source into a bfloat16 buffer
    return sums / counts.clamp(min=1).unsqueeze(-1)


def embed_sentences(model, input_ids, word_ids, mask, n_words):
    with torch.no_grad():
        hidden_states = model(input_ids)  # cause: model loaded in bfloat16, so hidden states are bfloat16
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
