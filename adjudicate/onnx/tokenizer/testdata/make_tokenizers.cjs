// Builds the small tokenizer.json files the tokenizer package's reference test
// runs, with the Hugging Face tokenizers library's own trainers (npm package
// tokenizers, which `make tokenizer-ref` installs into .cache/). Rerun with
//
//     make tokenizer-fixtures
//
// Each is trained on the committed demo corpus (benchdata/demo/corpus.jsonl,
// first 60 KB of text) with the library's default trainer for its model, then
// given the layout of a real family's tokenizer.json: special tokens first,
// normaliser, pre-tokeniser and post-processor as the family ships them.
//   wordpiece.json         BERT uncased (BertNormalizer lowercase, accents stripped)
//   wordpiece_cased.json   BERT cased (no lower-casing, accents kept)
//   bpe.json               RoBERTa / BART (byte-level BPE, <s> A </s></s> B </s>)
//   unigram.json           DeBERTa-v3 (Replace normalisers, WhitespaceSplit + Metaspace,
//                          [CLS] A [SEP] B [SEP]; NFKC stands in for the
//                          SentencePiece charsmap a real export carries)
//   unigram_xlmr.json      XLM-R (Metaspace alone, RoBERTa-style special tokens)
const fs = require("fs");
const os = require("os");
const path = require("path");
const tk = require("tokenizers");

const here = __dirname;
const root = path.join(here, "../../../..");
let text = "";
for (const line of fs.readFileSync(path.join(root, "benchdata/demo/corpus.jsonl"), "utf8").split("\n")) {
  if (!line.trim()) continue;
  text += JSON.parse(line).text + "\n";
  if (text.length > 60000) break;
}
const trainFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tok-")), "train.txt");
fs.writeFileSync(trainFile, text);

function train(model, pre, normalizer) {
  const t = new tk.Tokenizer(model);
  if (normalizer) t.setNormalizer(normalizer);
  if (pre) t.setPreTokenizer(pre);
  t.train([trainFile]);
  const out = path.join(path.dirname(trainFile), "trained.json");
  t.save(out);
  return JSON.parse(fs.readFileSync(out, "utf8")).model;
}

function added(tokens, lstrip = {}) {
  return tokens.map(([content, id]) => ({
    id, content, single_word: false, lstrip: !!lstrip[content], rstrip: false, normalized: false, special: true,
  }));
}

function template(cls, sep, specials) {
  const S = (id, type_id) => ({ SpecialToken: { id, type_id } });
  const Q = (id, type_id) => ({ Sequence: { id, type_id } });
  const special_tokens = {};
  for (const [t, id] of specials) special_tokens[t] = { id: t, ids: [id], tokens: [t] };
  return {
    type: "TemplateProcessing",
    single: [S(cls, 0), Q("A", 0), S(sep, 0)],
    pair: [S(cls, 0), Q("A", 0), S(sep, 0), Q("B", 1), S(sep, 1)],
    special_tokens,
  };
}

function write(name, obj) {
  // Round trip through the library: it must load what we write.
  const t = tk.Tokenizer.fromString(JSON.stringify(obj));
  t.save(path.join(here, name), true);
  console.log("wrote", name, "vocab", t.getVocabSize(true));
}

// WordPiece, BERT-style.
{
  const m = train(tk.WordPiece.empty(), tk.bertPreTokenizer(), tk.bertNormalizer({ lowercase: true }));
  const specials = [["[PAD]", 0], ["[UNK]", 1], ["[CLS]", 2], ["[SEP]", 3], ["[MASK]", 4]];
  const vocab = {};
  for (const [t, id] of specials) vocab[t] = id;
  const words = Object.entries(m.vocab).sort((a, b) => a[1] - b[1]).map((e) => e[0]);
  for (const w of words) if (!(w in vocab)) vocab[w] = Object.keys(vocab).length;
  const base = {
    version: "1.0", truncation: null, padding: null, added_tokens: added(specials),
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: template("[CLS]", "[SEP]", [["[CLS]", 2], ["[SEP]", 3]]),
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
  write("wordpiece.json", { ...base, normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true } });
  write("wordpiece_cased.json", { ...base, normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: false } });
}

// Byte-level BPE, RoBERTa-style.
{
  const m = train(tk.BPE.empty(), tk.byteLevelPreTokenizer(false, true), null);
  const specials = [["<s>", 0], ["<pad>", 1], ["</s>", 2], ["<unk>", 3]];
  const vocab = {};
  for (const [t, id] of specials) vocab[t] = id;
  const words = Object.entries(m.vocab).sort((a, b) => a[1] - b[1]).map((e) => e[0]);
  for (const w of [...tk.byteLevelAlphabet().sort(), ...words]) if (!(w in vocab)) vocab[w] = Object.keys(vocab).length;
  const mask = Object.keys(vocab).length;
  vocab["<mask>"] = mask;
  write("bpe.json", {
    version: "1.0", truncation: null, padding: null,
    added_tokens: added([...specials, ["<mask>", mask]], { "<mask>": true }),
    normalizer: null,
    pre_tokenizer: { type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: "RobertaProcessing", sep: ["</s>", 2], cls: ["<s>", 0], trim_offsets: true, add_prefix_space: false },
    decoder: { type: "ByteLevel", add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "",
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges: m.merges },
  });
}

// Unigram, DeBERTa-v3- and XLM-R-style.
{
  const pre = tk.sequencePreTokenizer([tk.whitespaceSplitPreTokenizer(), tk.metaspacePreTokenizer("▁", "always", true)]);
  const m = train(tk.Unigram.empty(), pre, tk.nfkcNormalizer());
  const deberta = [["[PAD]", 0], ["[CLS]", 1], ["[SEP]", 2], ["[UNK]", 3]];
  const vocab = deberta.map(([t]) => [t, 0.0]);
  for (const [t, s] of m.vocab) if (!deberta.some(([d]) => d === t)) vocab.push([t, s]);
  const mask = vocab.length;
  vocab.push(["[MASK]", 0.0]);
  write("unigram.json", {
    version: "1.0", truncation: null, padding: null,
    added_tokens: added([...deberta, ["[MASK]", mask]]),
    normalizer: { type: "Sequence", normalizers: [
      { type: "Replace", pattern: { String: "``" }, content: "\"" },
      { type: "Replace", pattern: { String: "''" }, content: "\"" },
      { type: "NFKC" },
      { type: "Replace", pattern: { Regex: " {2,}" }, content: " " },
    ] },
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "WhitespaceSplit" },
      { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
    ] },
    post_processor: template("[CLS]", "[SEP]", [["[CLS]", 1], ["[SEP]", 2]]),
    decoder: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
    model: { type: "Unigram", unk_id: 3, vocab, byte_fallback: false },
  });
  const xl = [["<s>", 0], ["<pad>", 1], ["</s>", 2], ["<unk>", 3]];
  const xvocab = xl.map(([t]) => [t, 0.0]);
  for (const [t, s] of m.vocab) xvocab.push([t, s]);
  const xmask = xvocab.length;
  xvocab.push(["<mask>", 0.0]);
  write("unigram_xlmr.json", {
    version: "1.0", truncation: null, padding: null,
    added_tokens: added([...xl, ["<mask>", xmask]], { "<mask>": true }),
    normalizer: { type: "NFKC" },
    pre_tokenizer: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
    post_processor: { type: "RobertaProcessing", sep: ["</s>", 2], cls: ["<s>", 0], trim_offsets: true, add_prefix_space: true },
    decoder: { type: "Metaspace", replacement: "▁", prepend_scheme: "always", split: true },
    model: { type: "Unigram", unk_id: 3, vocab: xvocab, byte_fallback: false },
  });
}
