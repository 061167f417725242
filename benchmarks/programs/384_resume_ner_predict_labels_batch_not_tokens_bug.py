"""Bug: the resume NER server's predict() builds its dummy labels as [1] * input_ids.size(0), the batch size (1), instead of one per token, so the token classifier's flattened (max_len, num_labels) logits meet a single target.

family: class-target
category: factories
expected: ValueError
message: Expected input batch_size (50) to match target batch_size (1).
source: https://github.com/singhsourabh/Resume-NER/issues/6
"""
import random

import torch
import torch.nn as nn

TAGS = ["O", "B-NAME", "I-NAME", "B-SKILL", "I-SKILL", "B-DEG", "I-DEG", "PAD"]
tag2idx = {t: i for i, t in enumerate(TAGS)}
idx2tag = {i: t for t, i in tag2idx.items()}


class Tokenizer:
    def __init__(self, vocab_size=200):
        self.vocab_size = vocab_size

    def tokenize(self, text):
        return text.lower().split()

    def convert_tokens_to_ids(self, tokens):
        return [2 + (sum(map(ord, t)) % (self.vocab_size - 2)) for t in tokens]


class BertForTokenClassification(nn.Module):
    def __init__(self, vocab_size, num_labels, hidden=32, max_len=64):
        super().__init__()
        self.num_labels = num_labels
        self.embeddings = nn.Embedding(vocab_size, hidden)
        self.position = nn.Embedding(max_len, hidden)
        layer = nn.TransformerEncoderLayer(hidden, 4, 64, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask=None, labels=None):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.encoder(self.embeddings(input_ids) + self.position(pos), src_key_padding_mask=attention_mask == 0)
        logits = self.classifier(h)
        if labels is not None:
            loss_fct = nn.CrossEntropyLoss()
            loss = loss_fct(logits.view(-1, self.num_labels), labels.view(-1))  # bug: 50 token logits vs 1 label
            return loss, logits
        return (logits,)


def process_resume(text, tokenizer, max_len):
    tokens = tokenizer.tokenize(text)[:max_len]
    ids = tokenizer.convert_tokens_to_ids(tokens)
    mask = [1] * len(ids)
    pad = max_len - len(ids)
    return torch.tensor([ids + [0] * pad]), torch.tensor([mask + [0] * pad]), tokens


def predict(model, tokenizer, idx2tag, text, max_len):
    input_ids, input_mask, tokens = process_resume(text, tokenizer, max_len)
    labels = torch.tensor([1] * input_ids.size(0), dtype=torch.long).unsqueeze(0)  # cause: one label per batch row, not per token
    model.eval()
    with torch.no_grad():
        outputs = model(input_ids, attention_mask=input_mask, labels=labels)
        tmp_eval_loss, logits = outputs[:2]
    preds = logits.argmax(-1)[0][: len(tokens)].tolist()
    return [{"token": tok, "tag": idx2tag[p]} for tok, p in zip(tokens, preds)], tmp_eval_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    MAX_LEN = 50
    tokenizer = Tokenizer()
    model = BertForTokenClassification(tokenizer.vocab_size, len(TAGS), max_len=MAX_LEN)
    words = "john smith python java machine learning bachelor computer science sql docker".split()
    resume = " ".join(random.choice(words) for _ in range(30))
    entities, loss = predict(model, tokenizer, idx2tag, resume, MAX_LEN)
    print(entities[:5], round(loss, 4))
