"""Fixed twin of 318_qgen_decoder_steps_vs_full_question_bug.py: the target drops the <sos> token (question[:, 1:]), one target per decoder step.

family: shape
category: model-outputs
expected: success
source: https://github.com/gauthierdmn/question_generation/issues/4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

config = dict(vocab_size=40, emb_dim=16, hid_dim=24, batch_size=4, max_len_context=12, max_len_question=10,
              teacher_forcing=1.0, lr=1e-3, num_epochs=1)


class Encoder(nn.Module):
    def __init__(self, vocab, emb_dim, hid_dim):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb_dim)
        self.rnn = nn.GRU(emb_dim, hid_dim, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hid_dim, hid_dim)

    def forward(self, src):
        outputs, hidden = self.rnn(self.embedding(src))
        return outputs, torch.tanh(self.fc(torch.cat((hidden[-2], hidden[-1]), dim=1)))


class Decoder(nn.Module):
    def __init__(self, vocab, emb_dim, hid_dim):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb_dim)
        self.attn = nn.Linear(2 * hid_dim + hid_dim, 1)
        self.rnn = nn.GRUCell(emb_dim + 2 * hid_dim, hid_dim)
        self.out = nn.Linear(hid_dim, vocab)

    def forward(self, token, hidden, enc_out):
        scores = self.attn(torch.cat((enc_out, hidden[:, None].expand(-1, enc_out.size(1), -1)), dim=2))
        context = (scores.softmax(1) * enc_out).sum(1)
        hidden = self.rnn(torch.cat((self.embedding(token), context), dim=1), hidden)
        return F.log_softmax(self.out(hidden), dim=1), hidden


class Seq2Seq(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = Encoder(cfg["vocab_size"], cfg["emb_dim"], cfg["hid_dim"])
        self.decoder = Decoder(cfg["vocab_size"], cfg["emb_dim"], cfg["hid_dim"])

    def forward(self, sentence, question, teacher_forcing=1.0):
        enc_out, hidden = self.encoder(sentence)
        token, outputs = question[:, 0], []
        for t in range(1, question.size(1)):
            pred, hidden = self.decoder(token, hidden, enc_out)
            outputs.append(pred)
            token = question[:, t] if torch.rand(1).item() < teacher_forcing else pred.argmax(1)
        return torch.stack(outputs, dim=1)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    sentences = torch.randint(3, config["vocab_size"], (8, config["max_len_context"]), generator=g)
    questions = torch.randint(3, config["vocab_size"], (8, config["max_len_question"]), generator=g)
    questions[:, 0] = 1
    loader = DataLoader(TensorDataset(sentences, questions), batch_size=config["batch_size"], shuffle=True, generator=g)
    model = Seq2Seq(config)
    criterion = nn.NLLLoss(ignore_index=0)
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
    for epoch in range(config["num_epochs"]):
        for sentence, question in loader:
            pred = model(sentence, question, config["teacher_forcing"])
            loss = criterion(pred.view(-1, pred.size(2)), question[:, 1:].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
