"""Bug: the punctuation model runs a time-major bidirectional GRU and swaps its output to batch-first with transpose(0, 1) before the decoder; flattening that transposed output with .view(-1, hidden_size * bi_mul) fails because the strides no longer allow a view.

family: shape
category: model-outputs
expected: RuntimeError
message: view size is not compatible with input tensor's size and stride
source: https://github.com/geyang/deep-auto-punctuation/issues/3
"""
import torch
import torch.nn as nn

PUNCTUATION = [" ", ",", ".", "?"]


class GruRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, layers=1, bi=True):
        super().__init__()
        self.hidden_size, self.bi_mul = hidden_size, 2 if bi else 1
        self.gru = nn.GRU(input_size, hidden_size, layers, bidirectional=bi)
        self.decoder = nn.Linear(hidden_size * self.bi_mul, output_size)

    def forward(self, x, hidden):
        gru_output, hidden = self.gru(x, hidden)
        batch_first = gru_output.transpose(0, 1)  # cause: (batch, seq, 2H) view of a (seq, batch, 2H) output
        output = self.decoder(batch_first.view(-1, self.hidden_size * self.bi_mul))  # bug: view of the transposed output
        return output, hidden


class Engadget:
    def __init__(self, vocab_size, hidden_size=16, seq_len=12, batch_size=4):
        self.embed = nn.Embedding(vocab_size, 8)
        self.model = GruRNN(8, hidden_size, len(PUNCTUATION))
        self.seq_len, self.batch_size = seq_len, batch_size
        self.optimizer = torch.optim.Adam(list(self.model.parameters()) + list(self.embed.parameters()), lr=1e-3)
        self.criterion = nn.CrossEntropyLoss()

    def init_hidden(self):
        return torch.zeros(self.model.bi_mul, self.batch_size, self.model.hidden_size)

    def forward(self, input_text, target):
        self.output, self.hidden = self.model(self.embed(input_text), self.init_hidden())
        loss = self.criterion(self.output, target.transpose(0, 1).reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    vocab_size = 30
    egdt = Engadget(vocab_size)
    for step in range(3):
        input_ = torch.randint(0, vocab_size, (egdt.seq_len, egdt.batch_size), generator=g)
        target_ = torch.randint(0, len(PUNCTUATION), (egdt.seq_len, egdt.batch_size), generator=g)
        print(f"step {step} loss {egdt.forward(input_, target_):.4f}")
