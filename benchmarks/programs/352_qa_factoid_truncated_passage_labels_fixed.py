"""Fixed twin of 352_qa_factoid_truncated_passage_labels_bug.py: the label batch is sized, and each row's labels cut, to the passage words whose subwords survive the truncation.

family: shape
category: data-paths
expected: success
source: https://github.com/IndoNLP/indonlu/issues/28
"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

CLS, SEP, NUM_LABELS = 1, 2, 3


def encode(word):
    base = sum(map(ord, word)) % 90 + 10
    return [base, base + 1] if len(word) > 5 else [base]


class QAFactoidDataset(Dataset):
    def __init__(self, n=8, seed=0):
        rng = np.random.default_rng(seed)
        make_word = lambda: "".join(rng.choice(list("abcdefgh"), rng.integers(3, 9)))
        self.data = []
        for _ in range(n):
            question = [make_word() for _ in range(5)]
            passage = [make_word() for _ in range(rng.integers(20, 40))]
            self.data.append((question, passage, rng.integers(0, NUM_LABELS, len(passage))))

    def __getitem__(self, index):
        question, passage, seq_label = self.data[index]
        subwords, token_type_ids, subword_to_word_indices = [CLS], [0], [-1]
        for word in question:
            subwords += encode(word)
            token_type_ids += [0] * len(encode(word))
            subword_to_word_indices += [-1] * len(encode(word))
        subwords, token_type_ids, subword_to_word_indices = subwords + [SEP], token_type_ids + [0], subword_to_word_indices + [-1]
        for word_idx, word in enumerate(passage):
            subwords += encode(word)
            token_type_ids += [1] * len(encode(word))
            subword_to_word_indices += [word_idx] * len(encode(word))
        return (np.array(subwords + [SEP]), np.array(token_type_ids + [1]), np.array(subword_to_word_indices + [-1]),
                np.array(seq_label))

    def __len__(self):
        return len(self.data)


class QAFactoidDataLoader(DataLoader):
    def __init__(self, max_seq_len=512, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.collate_fn = self._collate_fn
        self.max_seq_len = max_seq_len

    def _collate_fn(self, batch):
        batch_size = len(batch)
        max_seq_len = min(self.max_seq_len, max(map(lambda x: len(x[0]), batch)))
        max_tgt_len = max(x[2][:max_seq_len].max() + 1 for x in batch)
        subword_batch = np.zeros((batch_size, max_seq_len), dtype=np.int64)
        mask_batch = np.zeros((batch_size, max_seq_len), dtype=np.float32)
        token_type_batch = np.zeros((batch_size, max_seq_len), dtype=np.int64)
        subword_to_word_indices_batch = np.full((batch_size, max_seq_len), -1, dtype=np.int64)
        seq_label_batch = np.full((batch_size, max_tgt_len), -100, dtype=np.int64)
        for i, (subwords, token_type_ids, subword_to_word_indices, seq_label) in enumerate(batch):
            subwords, subword_to_word_indices = subwords[:max_seq_len], subword_to_word_indices[:max_seq_len]
            subword_batch[i, :len(subwords)] = subwords
            mask_batch[i, :len(subwords)] = 1
            token_type_batch[i, :len(subwords)] = token_type_ids[:max_seq_len]
            subword_to_word_indices_batch[i, :len(subwords)] = subword_to_word_indices
            seq_label_batch[i, :subword_to_word_indices.max() + 1] = seq_label[:subword_to_word_indices.max() + 1]
        return [torch.from_numpy(a) for a in (subword_batch, mask_batch, token_type_batch, subword_to_word_indices_batch, seq_label_batch)]


class TinyBertForWordClassification(nn.Module):
    def __init__(self, vocab_size=128, hidden=32):
        super().__init__()
        self.num_labels = NUM_LABELS
        self.embeddings, self.token_type = nn.Embedding(vocab_size, hidden), nn.Embedding(2, hidden)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(hidden, 2, 64, batch_first=True), 1)
        self.classifier = nn.Linear(hidden, NUM_LABELS)

    def forward(self, input_ids, subword_to_word_ids, attention_mask, token_type_ids, labels=None):
        hidden = self.embeddings(input_ids) + self.token_type(token_type_ids)
        sequence_output = self.encoder(hidden, src_key_padding_mask=attention_mask == 0)
        max_seq_len = subword_to_word_ids.max() + 1
        word_latents = []
        for i in range(max_seq_len):
            mask = (subword_to_word_ids == i).unsqueeze(dim=-1)
            word_latents.append((sequence_output * mask).sum(dim=1) / mask.sum())
        logits = self.classifier(torch.stack(word_latents, dim=1))
        loss_fct = nn.CrossEntropyLoss()
        loss = loss_fct(logits.view(-1, self.num_labels), labels.view(-1))
        return loss, logits


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = QAFactoidDataLoader(dataset=QAFactoidDataset(), max_seq_len=40, batch_size=4, shuffle=False)
    model = TinyBertForWordClassification()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    model.train()
    for subword_batch, mask_batch, token_type_batch, subword_to_word_indices_batch, label_batch in loader:
        loss, logits = model(subword_batch, subword_to_word_indices_batch, mask_batch, token_type_batch, labels=label_batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.4f} logits {tuple(logits.shape)}")
