"""HELD-OUT half: the files its worlds' agents read (do not read when tuning)."""

CONTEXT = {
    "ledger": ("src/ledger/journal.ts", '''import { Entry, Period, PeriodState } from './types';

export class ClosedPeriodError extends Error {
  constructor(public readonly period: string) {
    super(`period ${period} is closed`);
  }
}

export interface Journal {
  entries: Entry[];
  periods: Map<string, Period>;
}

export function post(journal: Journal, entry: Entry): Journal {
  const period = journal.periods.get(entry.period);
  if (period && period.state === PeriodState.Closed) {
    throw new ClosedPeriodError(entry.period);
  }
  if (entry.debit !== entry.credit) {
    throw new Error(`unbalanced entry ${entry.id}: ${entry.debit} != ${entry.credit}`);
  }
  return { ...journal, entries: [...journal.entries, entry] };
}

export function entriesFor(journal: Journal, account: string, period: string): Entry[] {
  return journal.entries.filter((e) => e.period === period && (e.debitAccount === account || e.creditAccount === account));
}

export function periodsBefore(journal: Journal, period: string): string[] {
  return [...journal.periods.keys()].filter((p) => p < period).sort();
}
'''),
    "scheduler": ("scheduler/jobs.py", '''"""Job registry: what runs when, and the last outcome of each run."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from scheduler.cron import CronExpr


@dataclass
class Job:
    name: str
    schedule: CronExpr
    command: list[str]
    timeout_s: int = 600
    last_run: dt.datetime | None = None
    last_status: int | None = None
    tags: set[str] = field(default_factory=set)

    def due(self, now: dt.datetime) -> bool:
        if self.last_run is None:
            return self.schedule.matches(now)
        return self.schedule.matches(now) and now - self.last_run >= dt.timedelta(minutes=1)


class Registry:
    def __init__(self):
        self._jobs: dict[str, Job] = {}

    def add(self, job: Job) -> None:
        if job.name in self._jobs:
            raise ValueError(f"duplicate job {job.name}")
        self._jobs[job.name] = job

    def due(self, now: dt.datetime) -> list[Job]:
        return sorted((j for j in self._jobs.values() if j.due(now)), key=lambda j: j.name)

    def record(self, name: str, status: int, at: dt.datetime) -> None:
        job = self._jobs[name]
        job.last_run, job.last_status = at, status
'''),
    "gateway": ("internal/ratelimit/limiter.go", '''package ratelimit

import (
	"sync"
	"time"
)

// Limiter hands out tokens per key; the zero value is not usable, use New.
type Limiter struct {
	mu      sync.Mutex
	rate    float64 // tokens per second
	burst   int
	buckets map[string]*bucket
	now     func() time.Time
}

// New returns a limiter refilling rate tokens per second up to burst.
func New(rate float64, burst int) *Limiter {
	return &Limiter{rate: rate, burst: burst, buckets: map[string]*bucket{}, now: time.Now}
}

// Allow reports whether one more request for key may pass now.
func (l *Limiter) Allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: float64(l.burst), last: l.now()}
		l.buckets[key] = b
	}
	return b.take(l.now(), l.rate, l.burst)
}
'''),
    "thumbs": ("src/decode.rs", '''use image::{DynamicImage, ImageReader};
use std::io::Cursor;

/// The largest image accepted, in pixels (width * height).
pub const MAX_PIXELS: u64 = 50_000_000;

#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("unsupported format")]
    Format,
    #[error("image is {0} pixels, over the {MAX_PIXELS} limit")]
    TooLarge(u64),
    #[error(transparent)]
    Image(#[from] image::ImageError),
}

pub fn decode(bytes: &[u8]) -> Result<DynamicImage, DecodeError> {
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|_| DecodeError::Format)?;
    let (w, h) = reader.into_dimensions()?;
    let pixels = u64::from(w) * u64::from(h);
    if pixels > MAX_PIXELS {
        return Err(DecodeError::TooLarge(pixels));
    }
    let reader = ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(|_| DecodeError::Format)?;
    Ok(reader.decode()?)
}
'''),
    "notes": ("notes/models.py", '''from django.conf import settings
from django.db import models


class Notebook(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notebooks")
    title = models.CharField(max_length=200)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self):
        return self.title


class Note(models.Model):
    notebook = models.ForeignKey(Notebook, on_delete=models.CASCADE, related_name="notes")
    title = models.CharField(max_length=200, db_index=True)
    body = models.TextField(blank=True)
    pinned = models.BooleanField(default=False)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-pinned", "-updated"]
        indexes = [models.Index(fields=["notebook", "-updated"])]

    def __str__(self):
        return f"{self.notebook}: {self.title}"
'''),
}

RUNBOOK = {
    w: (
        f"RUNBOOK-{w}.md",
        "\n".join(
            [f"# {w} runbook", "", "Owner: platform team. Pager: #oncall-{w}.".replace("{w}", w), "", "## Local setup", ""]
            + [f"{i}. {step}" for i, step in enumerate([
                "clone the repository and install the toolchain pinned in `.tool-versions`",
                "copy `.env.example` to `.env`; the defaults talk to the local containers",
                "start the containers with `docker compose up -d db cache`",
                "run the migrations, then the seed script, in that order",
                "run the whole suite once before changing anything",
            ], 1)]
            + ["", "## Conventions", ""]
            + [f"- {c}" for c in [
                "one logical change per commit, message in the imperative",
                "no new dependency without a note in the pull request",
                "public behaviour changes get an entry under Unreleased in the changelog",
                "tests name the behaviour they pin, not the function they call",
                "feature flags default to off and are removed within two releases",
                "timeouts are explicit everywhere a network call is made",
            ]]
            + ["", "## Environment", "", "| variable | meaning | default |", "|---|---|---|"]
            + [f"| `{v}` | {m} | `{d}` |" for v, m, d in [
                ("APP_ENV", "which config profile to load", "development"),
                ("DATABASE_URL", "the primary database", "postgres://localhost/app"),
                ("CACHE_URL", "the shared cache", "redis://localhost:6379/0"),
                ("LOG_LEVEL", "minimum level written", "info"),
                ("HTTP_TIMEOUT_MS", "outbound request timeout", "5000"),
                ("FEATURE_FLAGS", "comma-separated flags switched on", ""),
                ("METRICS_ADDR", "where the metrics endpoint listens", "127.0.0.1:9100"),
                ("TRACE_SAMPLE", "share of requests traced", "0.05"),
            ]]
            + ["", "## Deploying", ""]
            + [f"{i}. {step}" for i, step in enumerate([
                "open a release pull request that moves Unreleased into a numbered section",
                "wait for the pipeline: lint, unit, integration, the container build",
                "tag the merge commit; the tag triggers the staging deploy",
                "watch the error-rate panel for fifteen minutes before promoting",
                "promote to production from the deploy dashboard, one region at a time",
                "if anything looks off, roll back with the previous tag; never hot-fix in place",
            ], 1)]
            + ["", "## Known issues", "", "- the first run after a fresh clone downloads fixtures (~40 MB)", "- a flaky test is quarantined, never deleted; see QUARANTINE.md", "- the staging database is reset every Sunday at 03:00 UTC", "- local clocks that drift more than a second break the signature tests"]
        ),
    )
    for w in ("ledger", "scheduler", "gateway", "thumbs", "notes")
}

HELPERS = {
    "ledger": ("src/test/fixtures.ts", "import { Entry, Period, PeriodState } from '../ledger/types';\n\nexport function entry(id: string, period: string, debitAccount: string, creditAccount: string, amount: number): Entry {\n  return { id, period, debitAccount, creditAccount, debit: amount, credit: amount, amount };\n}\n\nexport function journal() {\n  const periods = new Map<string, Period>([\n    ['2026-01', { id: '2026-01', state: PeriodState.Closed }],\n    ['2026-02', { id: '2026-02', state: PeriodState.Open }],\n  ]);\n  const entries = [\n    entry('e1', '2026-01', 'cash', 'revenue', 1000),\n    entry('e2', '2026-01', 'cash', 'revenue', 250),\n    entry('e3', '2026-02', 'rent', 'cash', 400),\n    entry('e4', '2026-02', 'cash', 'revenue', 400),\n  ];\n  return { entries, periods };\n}\n\nexport function closing(j: ReturnType<typeof journal>, account: string, period: string): number {\n  return j.entries\n    .filter((e) => e.period === period)\n    .reduce((s, e) => s + (e.debitAccount === account ? e.amount : 0) - (e.creditAccount === account ? e.amount : 0), 0);\n}\n"),
    "scheduler": ("tests/conftest.py", "import datetime as dt\n\nimport pytest\n\nfrom scheduler.jobs import Job, Registry\nfrom scheduler.cron import CronExpr\n\n\n@pytest.fixture\ndef registry():\n    r = Registry()\n    r.add(Job('backup', CronExpr.parse('0 3 * * *'), ['backup.sh']))\n    r.add(Job('report', CronExpr.parse('30 8 * * 1-5'), ['report.py', '--weekly']))\n    r.add(Job('sweep', CronExpr.parse('*/15 * * * *'), ['sweep.py']))\n    return r\n\n\n@pytest.fixture\ndef monday_morning():\n    return dt.datetime(2026, 11, 23, 8, 30)\n\n\n@pytest.fixture\ndef sunday_night():\n    return dt.datetime(2026, 11, 22, 23, 45)\n\n\ndef at(h, m, day=23):\n    return dt.datetime(2026, 11, day, h, m)\n"),
    "gateway": ("internal/ratelimit/clock_test.go", "package ratelimit\n\nimport (\n\t\"sync\"\n\t\"time\"\n)\n\n// fakeClock is a clock tests move by hand.\ntype fakeClock struct {\n\tmu  sync.Mutex\n\tnow time.Time\n}\n\nfunc newFakeClock() *fakeClock {\n\treturn &fakeClock{now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}\n}\n\nfunc (c *fakeClock) Now() time.Time {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\treturn c.now\n}\n\nfunc (c *fakeClock) Advance(d time.Duration) {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\tc.now = c.now.Add(d)\n}\n\nfunc newTestLimiter(rate float64, burst int) (*Limiter, *fakeClock) {\n\tc := newFakeClock()\n\tl := New(rate, burst)\n\tl.now = c.Now\n\treturn l, c\n}\n"),
    "thumbs": ("tests/common/mod.rs", "use image::{DynamicImage, ImageBuffer, Rgb};\n\n/// A solid image of the given size, encoded as PNG bytes.\npub fn png(w: u32, h: u32) -> Vec<u8> {\n    let img: ImageBuffer<Rgb<u8>, _> = ImageBuffer::from_pixel(w, h, Rgb([200, 120, 40]));\n    let mut out = Vec::new();\n    DynamicImage::ImageRgb8(img)\n        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)\n        .expect(\"encode\");\n    out\n}\n\n/// A JPEG with EXIF orientation 6 (rotated 90 degrees clockwise).\npub fn rotated_jpeg(w: u32, h: u32) -> Vec<u8> {\n    let mut bytes = png(w, h);\n    bytes.truncate(0);\n    include_bytes!(\"../fixtures/orientation-6.jpg\").to_vec()\n}\n\npub fn dims(bytes: &[u8]) -> (u32, u32) {\n    let img = image::load_from_memory(bytes).expect(\"decode\");\n    (img.width(), img.height())\n}\n"),
    "notes": ("notes/tests/factories.py", "from django.contrib.auth import get_user_model\n\nfrom notes.models import Note, Notebook\n\n\ndef make_user(name='ada'):\n    return get_user_model().objects.create_user(username=name, password='pw-' + name)\n\n\ndef make_notebook(user, title='Inbox'):\n    return Notebook.objects.create(owner=user, title=title)\n\n\ndef make_notes(user, n, notebook=None, pinned_every=0):\n    nb = notebook or make_notebook(user)\n    notes = []\n    for i in range(n):\n        notes.append(Note.objects.create(\n            notebook=nb,\n            title=f'note {i:03d}',\n            body='lorem ipsum ' * (i % 7),\n            pinned=bool(pinned_every) and i % pinned_every == 0,\n        ))\n    return notes\n"),
}
