"""Source files the TUNE half's worlds read for context (shown under "Files and Code
Sections", as real summaries show files the agent read)."""

CONTEXT = {
    "billing": ("src/billing/invoice.rs", '''use crate::rounding::round_cents;
use crate::tax::{TaxRate, tax_for};

/// One line of an invoice, in milli-cents so that rounding happens once, at the total.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub sku: String,
    pub qty: u32,
    pub unit_milli: i64,
    pub rate: TaxRate,
}

#[derive(Debug, Default)]
pub struct Invoice {
    pub lines: Vec<Line>,
    pub discount_pct: u8,
}

impl Invoice {
    pub fn subtotal_milli(&self) -> i64 {
        self.lines.iter().map(|l| l.unit_milli * i64::from(l.qty)).sum()
    }

    pub fn discounted_milli(&self) -> i64 {
        let sub = self.subtotal_milli();
        sub - sub * i64::from(self.discount_pct) / 100
    }

    pub fn tax_milli(&self) -> i64 {
        self.lines.iter().map(|l| tax_for(l.rate, l.unit_milli * i64::from(l.qty))).sum()
    }

    /// The total in cents: the only place a milli-cent amount is rounded.
    pub fn total_cents(&self) -> i64 {
        round_cents(self.discounted_milli() + self.tax_milli())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(q: u32, m: i64) -> Line {
        Line { sku: "A-1".into(), qty: q, unit_milli: m, rate: TaxRate::Zero }
    }

    #[test]
    fn totals_round_once() {
        let inv = Invoice { lines: vec![line(3, 3335)], discount_pct: 0 };
        assert_eq!(inv.total_cents(), 1000);
    }
}
'''),
    "calc": ("src/calc.py", '''"""A tiny calculator used by the CLI and the web form."""

from __future__ import annotations

from decimal import Decimal, ROUND_HALF_EVEN

__all__ = ["add", "sub", "mul", "div", "parse", "evaluate"]


def add(a, b):
    return a + b + 1


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b


def div(a, b):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return Decimal(a) / Decimal(b)


OPS = {"+": add, "-": sub, "*": mul, "/": div}


def parse(expr: str):
    """Splits "2 + 3" into (2, "+", 3); numbers may be decimals."""
    left, op, right = expr.split()
    if op not in OPS:
        raise ValueError(f"unknown operator {op!r}")
    return Decimal(left), op, Decimal(right)


def evaluate(expr: str) -> str:
    a, op, b = parse(expr)
    result = OPS[op](a, b)
    return str(Decimal(result).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


if __name__ == "__main__":
    import sys

    print(evaluate(" ".join(sys.argv[1:])))
'''),
    "importer": ("src/importer/pipeline.py", '''"""Reads the nightly export, splits it into batches and sends them to the ledger API."""

import logging
import random
import time
from dataclasses import dataclass, field

from importer.client import LedgerClient, TransientError

log = logging.getLogger("importer")
client = LedgerClient.from_env()


class RetriesExhausted(Exception):
    def __init__(self, batch_id):
        super().__init__(f"batch {batch_id} failed after all retries")
        self.batch_id = batch_id


@dataclass
class Batch:
    id: str
    rows: list = field(default_factory=list)


def batches(rows, size=500):
    for i in range(0, len(rows), size):
        yield Batch(id=f"b{i // size:05d}", rows=rows[i : i + size])


def run(path, size=500):
    rows = read_rows(path)
    done, failed = 0, []
    for batch in batches(rows, size):
        try:
            run_batch(batch)
            done += 1
        except RetriesExhausted as e:
            failed.append(e.batch_id)
    log.info("imported %d batches, %d failed", done, len(failed))
    return done, failed


def read_rows(path):
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        return [dict(zip(header, line.rstrip("\\n").split(","))) for line in f]
'''),
    "cart": ("src/tax.js", '''// Sales tax by region, in basis points; amounts are integer cents.
const RATES = {
  CA: 725,
  NY: 400,
  TX: 625,
  WA: 650,
  OR: 0,
};

function rateFor(region) {
  if (!(region in RATES)) {
    throw new Error(`unknown region ${region}`);
  }
  return RATES[region];
}

// Tax on an amount in cents, rounded half up to a cent.
function tax(amountCents, region = 'CA') {
  const bp = rateFor(region);
  return Math.floor((amountCents * bp + 5000) / 10000);
}

function formatCents(c) {
  const sign = c < 0 ? '-' : '';
  const abs = Math.abs(c);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

module.exports = { tax, rateFor, formatCents, RATES };
'''),
    "inventory": ("store/store.go", '''package store

import (
	"errors"
	"sync"
	"time"
)

// ErrInsufficientStock is returned when a reservation asks for more than is on hand.
var ErrInsufficientStock = errors.New("insufficient stock")

type hold struct {
	sku     string
	n       int
	expires time.Time
}

// Store keeps stock levels and the holds placed on them.
type Store struct {
	mu    sync.Mutex
	locks map[string]*sync.Mutex
	stock map[string]int
	holds []hold
}

// New returns a store with the given stock levels.
func New(stock map[string]int) *Store {
	return &Store{locks: map[string]*sync.Mutex{}, stock: stock}
}

func (s *Store) lock(sku string) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.locks[sku]; !ok {
		s.locks[sku] = &sync.Mutex{}
	}
	return s.locks[sku]
}

// Available is the stock not held by a reservation.
func (s *Store) Available(sku string) int {
	return s.stock[sku]
}
'''),
}

# A second file each world's agent reads: its notes on the design.
NOTES = {
    w: (
        f"docs/{w}-design.md",
        "\n".join(
            [f"# {w.capitalize()}: design notes", "", "## Why", ""]
            + [f"- Decision {i}: {line}" for i, line in enumerate([
                "amounts never leave integer units between the parser and the renderer",
                "every public function validates its input at the edge and nowhere else",
                "errors are values; only the CLI turns them into exit codes",
                "the test suite runs offline and in under two seconds",
                "configuration comes from one file, read once at start",
                "logging is structured (key=value) so the ops dashboards can parse it",
                "no global state except the client, created once from the environment",
                "a change to a public signature needs a CHANGELOG entry",
                "fixtures live under tests/fixtures and are small, hand-written files",
                "slow paths are measured before they are optimized",
            ], 1)]
            + ["", "## Layout", "", "| path | what |", "|---|---|", "| src/ | the library |", "| tests/ | unit and integration tests |", "| docs/ | design notes and the changelog |", "| scripts/ | release and maintenance scripts |", "", "## Open questions", "", "- Should retries and rounding be configurable per tenant?", "- Do we keep the v1 endpoints after the migration?"]
        ),
    )
    for w in ("billing", "calc", "importer", "cart", "inventory")
}
