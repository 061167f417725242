"""Bug: the export helper casts the position ids to float (as the reporter did before an ONNX export); the encoder's sinusoid position table is an nn.Embedding, which needs integer indices.

family: int-float
category: factories
expected: RuntimeError
message: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.FloatTensor instead
source: https://github.com/xcmyz/FastSpeech/issues/89
"""
import numpy as np
import torch
import torch.nn as nn

SYMBOLS = "_ abcdefghijklmnopqrstuvwxyz.,!?"


def text_to_sequence(text):
    return [SYMBOLS.index(c) for c in text.lower() if c in SYMBOLS]


def sinusoid_table(n_position, d_hid, padding_idx=0):
    pos = np.arange(n_position)[:, None]
    i = np.arange(d_hid)[None, :]
    angle = pos / np.power(10000, 2 * (i // 2) / d_hid)
    table = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    table[padding_idx] = 0.0
    return torch.FloatTensor(table)


class Encoder(nn.Module):
    def __init__(self, n_vocab=len(SYMBOLS), d_model=32, max_seq_len=64):
        super().__init__()
        self.src_word_emb = nn.Embedding(n_vocab, d_model, padding_idx=0)
        self.position_enc = nn.Embedding.from_pretrained(sinusoid_table(max_seq_len + 1, d_model), freeze=True)
        layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=64, batch_first=True)
        self.layers = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, src_seq, src_pos):
        enc = self.src_word_emb(src_seq) + self.position_enc(src_pos)  # bug: float position ids
        return self.layers(enc, src_key_padding_mask=src_pos.eq(0))


class FastSpeech(nn.Module):
    def __init__(self, d_model=32, n_mels=20):
        super().__init__()
        self.encoder = Encoder(d_model=d_model)
        self.mel_linear = nn.Linear(d_model, n_mels)

    def forward(self, src_seq, src_pos):
        return self.mel_linear(self.encoder(src_seq, src_pos))


def get_export_inputs(text):
    sequence = np.stack([np.array(text_to_sequence(text) + [0])])
    src_pos = np.stack([np.array([i + 1 for i in range(sequence.shape[1])])])
    sequence = torch.from_numpy(sequence).long()
    src_pos = torch.from_numpy(src_pos).float()  # cause: position ids become float32
    return sequence, src_pos


if __name__ == "__main__":
    torch.manual_seed(0)
    model = FastSpeech()
    model.eval()
    sequence, src_pos = get_export_inputs("I am very happy to see you again.")
    with torch.no_grad():
        mel = model(sequence, src_pos)
    print("mel", tuple(mel.shape))
