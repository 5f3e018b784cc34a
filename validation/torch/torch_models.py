"""The whole models the torch validation runs: torchvision's ResNet-18 and ResNet-50, and a BERT-base
encoder built from torch.nn modules (Devlin et al. 2019: 12 layers, hidden 768, 12 heads, FFN 3072,
vocabulary 30522), so that every op is a module or a function torch.fx can trace and time."""
import math

import torch
import torch.nn as nn
import torchvision


class SelfAttention(nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = (nn.Linear(hidden, hidden) for _ in range(3))
        self.softmax = nn.Softmax(dim=-1)
        self.output = nn.Linear(hidden, hidden)

    def split(self, x, b, s):
        return x.view(b, s, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, b: int, s: int):
        q = self.split(self.query(x), b, s)
        k = self.split(self.key(x), b, s)
        v = self.split(self.value(x), b, s)
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        context = torch.matmul(self.softmax(scores), v)
        return self.output(context.permute(0, 2, 1, 3).reshape(b, s, self.heads * self.head_dim))


class EncoderLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.up, self.down = nn.Linear(hidden, ffn), nn.Linear(ffn, hidden)
        self.gelu = nn.GELU()
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, b: int, s: int):
        x = self.norm1(x + self.dropout(self.attention(x, b, s)))
        return self.norm2(x + self.dropout(self.down(self.gelu(self.up(x)))))


class BertEncoder(nn.Module):
    def __init__(self, batch, seq, layers=12, hidden=768, heads=12, ffn=3072, vocab=30522):
        super().__init__()
        self.batch, self.seq = batch, seq
        self.words, self.positions = nn.Embedding(vocab, hidden), nn.Embedding(512, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))

    def forward(self, tokens, positions):
        x = self.norm(self.words(tokens) + self.positions(positions))
        for layer in self.layers:
            x = layer(x, self.batch, self.seq)
        return x


def build(name):
    """(network, batch, sequence, module, example inputs) for a model name of the validation set."""
    torch.manual_seed(0)
    if name in ("resnet18", "resnet18-b8", "resnet50", "resnet50-b8"):
        network = name.split("-")[0]
        batch = 8 if name.endswith("-b8") else 1
        model = getattr(torchvision.models, network)()
        return network, batch, 0, model.eval(), (torch.randn(batch, 3, 224, 224),)
    if name == "bert-base":
        batch, seq = 1, 128
        tokens = torch.randint(0, 30522, (batch, seq))
        positions = torch.arange(seq).unsqueeze(0).expand(batch, seq).contiguous()
        return "bert-base", batch, seq, BertEncoder(batch, seq).eval(), (tokens, positions)
    raise ValueError(f"unknown model '{name}' (known: {', '.join(MODELS)})")


MODELS = ["resnet18", "resnet18-b8", "resnet50", "resnet50-b8", "bert-base"]
