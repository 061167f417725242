"""Bug: the attention decoder returns per-step scores shaped (batch, max_decode_len, vocab) and the training step hands them straight to CrossEntropyLoss with the (batch, caption_len) targets, without packing either by the decode lengths; cross_entropy reads dim 1 as the class dimension and rejects the targets.

family: shape
category: model-outputs
expected: RuntimeError
message: Expected target size
source: https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/issues/195
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence


class DecoderWithAttention(nn.Module):
    def __init__(self, vocab_size, embed_dim=16, encoder_dim=8, decoder_dim=24):
        super().__init__()
        self.vocab_size = vocab_size
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.att = nn.Linear(encoder_dim + decoder_dim, 1)
        self.init_h = nn.Linear(encoder_dim, decoder_dim)
        self.init_c = nn.Linear(encoder_dim, decoder_dim)
        self.decode_step = nn.LSTMCell(embed_dim + encoder_dim, decoder_dim)
        self.fc = nn.Linear(decoder_dim, vocab_size)

    def forward(self, encoder_out, captions, caption_lengths):
        caption_lengths, sort_ind = caption_lengths.sort(descending=True)
        encoder_out, captions = encoder_out[sort_ind], captions[sort_ind]
        mean_enc = encoder_out.mean(dim=1)
        h, c = self.init_h(mean_enc), self.init_c(mean_enc)
        emb = self.embedding(captions)
        decode_lengths = (caption_lengths - 1).tolist()
        b, steps = captions.size(0), max(decode_lengths)
        scores = torch.zeros(b, steps, self.vocab_size)
        for t in range(steps):
            bt = sum(l > t for l in decode_lengths)
            hh = h[:bt].unsqueeze(1).expand(-1, encoder_out.size(1), -1)
            alpha = torch.softmax(self.att(torch.cat([encoder_out[:bt], hh], 2)), dim=1)
            context = (alpha * encoder_out[:bt]).sum(1)
            h, c = self.decode_step(torch.cat([emb[:bt, t], context], 1), (h[:bt], c[:bt]))
            scores[:bt, t] = self.fc(h)
        return scores, captions, decode_lengths


def train_step(decoder, criterion, optimizer, imgs, caps, caplens):
    scores, caps_sorted, decode_lengths = decoder(imgs, caps, caplens)
    targets = caps_sorted[:, 1:]  # cause: padded scores and targets are never packed by decode_lengths
    loss = criterion(scores, targets)  # bug: (B, T, V) scores read with T as the class dim against (B, L) targets
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    vocab_size, batch, max_len = 30, 4, 9
    decoder = DecoderWithAttention(vocab_size)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(decoder.parameters(), lr=1e-3)
    imgs = torch.randn(batch, 5, 8)
    caps = torch.randint(1, vocab_size, (batch, max_len))
    caplens = torch.tensor([9, 7, 6, 4])
    print("loss", train_step(decoder, criterion, optimizer, imgs, caps, caplens))
