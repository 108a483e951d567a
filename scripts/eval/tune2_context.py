"""The TUNE2 half's projects: the source file each agent reads before its change (it holds the
code the change replaces) and the project's manifest or task file (where the project's own
test entry point is declared). Shown under "Files and Code Sections", as real summaries show
the files the agent read."""

SOURCE = {
    "flask": ("linkshort/routes.py", '''from datetime import datetime, timezone

from flask import Blueprint, abort, current_app, redirect, request

from .models import Link, db
from .slugs import new_slug, valid_slug

bp = Blueprint("links", __name__)


@bp.post("/api/links")
def create_link():
    body = request.get_json(force=True)
    target = body.get("url", "").strip()
    if not target.startswith(("http://", "https://")):
        abort(400, "url must be absolute")
    slug = body.get("slug") or new_slug()
    if not valid_slug(slug):
        abort(400, "invalid slug")
    ttl = int(body.get("ttl_days", current_app.config["DEFAULT_TTL_DAYS"]))
    link = Link.create(slug=slug, target=target, ttl_days=ttl)
    return {"slug": link.slug, "expires_at": link.expires_at.isoformat()}, 201


@bp.get("/r/<slug>")
def follow(slug):
    link = Link.query.filter_by(slug=slug).first_or_404()
    return redirect(link.target, code=302)


@bp.get("/api/links/<slug>/stats")
def stats(slug):
    link = Link.query.filter_by(slug=slug).first_or_404()
    return {"slug": slug, "hits": link.hits, "created_at": link.created_at.isoformat()}
'''),
    "gocli": ("internal/parse/csv.go", '''package parse

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// Table is a parsed CSV file: a header and its rows, every row as long as the header.
type Table struct {
	Header []string
	Rows   [][]string
}

// Options control how a file is read.
type Options struct {
	Delimiter rune
	TrimSpace bool
}

// Read parses r into a Table.
func Read(r io.Reader, opt Options) (*Table, error) {
	cr := csv.NewReader(r)
	if opt.Delimiter != 0 {
		cr.Comma = opt.Delimiter
	}
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	t := &Table{Header: header}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(t.Rows)+2, err)
		}
		if opt.TrimSpace {
			for i := range rec {
				rec[i] = strings.TrimSpace(rec[i])
			}
		}
		t.Rows = append(t.Rows, rec)
	}
	return t, nil
}
'''),
    "tsmono": ("packages/ui/src/useDebounce.ts", '''import { useCallback, useEffect, useRef } from "react";

export interface DebounceOptions {
  /** Call on the leading edge as well as the trailing one. */
  leading?: boolean;
  /** Longest time a call may be delayed, in ms. */
  maxWait?: number;
}

export function useDebounce<A extends unknown[]>(
  fn: (...args: A) => void,
  delay: number,
  options: DebounceOptions = {},
) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(fn);
  latest.current = fn;

  useEffect(() => {}, []);

  return useCallback(
    (...args: A) => {
      if (timer.current === null && options.leading) {
        latest.current(...args);
      }
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        timer.current = null;
        latest.current(...args);
      }, delay);
    },
    [delay, options.leading],
  );
}
'''),
    "maven": ("src/main/java/com/acme/ledger/TransferService.java", '''package com.acme.ledger;

import java.math.BigDecimal;
import java.time.Clock;
import java.util.UUID;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class TransferService {

    private final AccountRepository accounts;
    private final TransferRepository transfers;
    private final Clock clock;

    public TransferService(AccountRepository accounts, TransferRepository transfers, Clock clock) {
        this.accounts = accounts;
        this.transfers = transfers;
        this.clock = clock;
    }

    @Transactional
    public TransferResult transfer(UUID from, UUID to, BigDecimal amount) {
        if (amount.signum() <= 0) {
            return TransferResult.rejected("amount must be positive");
        }
        Account source = accounts.lockById(from);
        Account target = accounts.lockById(to);
        source.debit(amount);
        target.credit(amount);
        Transfer t = transfers.save(new Transfer(from, to, amount, clock.instant()));
        return TransferResult.accepted(t.id());
    }
}
'''),
    "gradle": ("core/src/main/kotlin/parcel/RateLimiter.kt", '''package parcel

import java.time.Clock
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap

/** Token bucket per key: [capacity] tokens, all refilled once [window] has elapsed. */
class RateLimiter(
    private val capacity: Int,
    private val window: Duration,
    private val clock: Clock = Clock.systemUTC(),
) {
    private data class Bucket(var tokens: Int, var windowStart: Long)

    private val buckets = ConcurrentHashMap<String, Bucket>()

    fun tryAcquire(key: String): Boolean {
        val now = clock.millis()
        val b = buckets.computeIfAbsent(key) { Bucket(capacity, now) }
        synchronized(b) {
            if (b.tokens == 0) return false
            b.tokens -= 1
            return true
        }
    }

    fun remaining(key: String): Int = buckets[key]?.tokens ?: capacity
}
'''),
    "django": ("appointments/views.py", '''from django.db import transaction
from django.http import JsonResponse
from django.views.decorators.http import require_POST

from .forms import BookingForm
from .models import Appointment, Doctor


@require_POST
def book(request, doctor_id):
    doctor = Doctor.objects.get(pk=doctor_id)
    form = BookingForm(request.POST)
    if not form.is_valid():
        return JsonResponse({"errors": form.errors}, status=400)
    with transaction.atomic():
        appt = Appointment.objects.create(
            doctor=doctor,
            patient=request.user.patient,
            start=form.cleaned_data["start"],
            duration=form.cleaned_data["duration"],
        )
    return JsonResponse({"id": appt.pk, "start": appt.start.isoformat()}, status=201)


def slots(request, doctor_id):
    doctor = Doctor.objects.get(pk=doctor_id)
    day = request.GET.get("day")
    free = doctor.free_slots(day)
    return JsonResponse({"slots": [s.isoformat() for s in free]})
'''),
    "rails": ("app/models/loan.rb", '''class Loan < ApplicationRecord
  belongs_to :book
  belongs_to :member

  LOAN_DAYS = 21
  MAX_RENEWALS = 2

  validates :due_on, presence: true
  validate :member_in_good_standing, on: :create

  before_validation :set_due_on, on: :create

  scope :open, -> { where(returned_at: nil) }
  scope :overdue, -> { open.where("due_on < ?", Date.current) }

  def overdue?(today = Date.current)
    returned_at.nil? && today > due_on + 1
  end

  def renew!
    raise RenewalLimit if renewals >= MAX_RENEWALS
    update!(due_on: due_on + LOAN_DAYS, renewals: renewals + 1)
  end

  private

  def set_due_on
    self.due_on ||= Date.current + LOAN_DAYS
  end

  def member_in_good_standing
    errors.add(:member, "has unpaid fines") if member&.fines_cents.to_i > 0
  end
end
'''),
    "pantry": ("app/models/recipe.rb", '''class Recipe < ApplicationRecord
  has_many :ingredients, dependent: :destroy
  has_many :steps, -> { order(:position) }, dependent: :destroy

  validates :title, presence: true
  validates :servings, numericality: { greater_than: 0 }

  def scaled(servings_wanted)
    factor = servings_wanted / servings
    ingredients.map { |i| i.with_quantity(i.quantity * factor) }
  end

  def total_minutes
    steps.sum(:minutes)
  end
end
'''),
    "nextest": ("crates/quarry-index/src/segment.rs", '''use crate::doc::{DocId, Posting};

/// An immutable run of postings, sorted by doc id; deletes are tombstones until a merge.
#[derive(Debug, Clone, Default)]
pub struct Segment {
    pub postings: Vec<Posting>,
    pub tombstones: Vec<DocId>,
}

impl Segment {
    pub fn len(&self) -> usize {
        self.postings.len()
    }

    pub fn is_deleted(&self, id: DocId) -> bool {
        self.tombstones.binary_search(&id).is_ok()
    }
}

/// Merges two adjacent segments into one.
pub fn merge(a: &Segment, b: &Segment) -> Segment {
    let mut postings: Vec<Posting> = a.postings.iter().chain(&b.postings).cloned().collect();
    postings.sort_by_key(|p| p.doc);
    Segment { postings, tombstones: Vec::new() }
}
'''),
    "ctest": ("src/resize.cpp", '''#include "raster/resize.hpp"

#include <algorithm>
#include <cmath>

namespace raster {

namespace {
constexpr double kPi = 3.14159265358979323846;

double sinc(double x) {
    if (x == 0.0) return 1.0;
    x *= kPi;
    return std::sin(x) / x;
}
}  // namespace

double lanczos(double x, int a) {
    if (x <= -a || x >= a) return 0.0;
    return sinc(x) * sinc(x / a);
}

Image resize_lanczos(const Image& src, int w, int h, int a) {
    Image out(w, h, src.channels());
    const double sx = double(src.width()) / w;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            const double cx = (x + 0.5) * sx - 0.5;
            for (int c = 0; c < src.channels(); ++c) {
                double acc = 0.0, wsum = 0.0;
                for (int i = int(std::floor(cx)) - a + 1; i <= int(std::floor(cx)) + a; ++i) {
                    const double wgt = lanczos(cx - i, a);
                    acc += wgt * src.at(i, y, c);
                    wsum += wgt;
                }
                out.at(x, y, c) = acc / wsum;
            }
        }
    }
    return out;
}

}  // namespace raster
'''),
    "elixir": ("lib/relay/presence_diff.ex", '''defmodule Relay.PresenceDiff do
  @moduledoc """
  Computes what changed between two presence snapshots of a topic, so that clients get
  joins and leaves instead of the whole list.
  """

  @type snapshot :: %{optional(String.t()) => map()}
  @type t :: %__MODULE__{joins: [String.t()], leaves: [String.t()]}

  defstruct joins: [], leaves: []

  @spec between(snapshot, snapshot) :: t
  def between(old, new) do
    joins =
      new
      |> Map.keys()
      |> Enum.reject(&Map.has_key?(old, &1))
      |> Enum.sort()

    %__MODULE__{joins: joins, leaves: []}
  end

  @spec empty?(t) :: boolean
  def empty?(%__MODULE__{joins: [], leaves: []}), do: true
  def empty?(_), do: false
end
'''),
    "php": ("app/Services/SlotFinder.php", '''<?php

namespace App\\Services;

use App\\Models\\Clinic;
use Carbon\\CarbonImmutable;
use Carbon\\CarbonPeriod;

final class SlotFinder
{
    public function __construct(private readonly Clinic $clinic)
    {
    }

    /**
     * The next $count days with at least one free slot, starting at $from.
     *
     * @return list<string> dates as Y-m-d
     */
    public function nextOpenDays(CarbonImmutable $from, int $count = 5): array
    {
        $days = [];
        foreach (CarbonPeriod::create($from, '1 day', $from->addDays(60)) as $day) {
            if ($day->isWeekend()) {
                continue;
            }
            $days[] = $day->format('Y-m-d');
            if (count($days) === $count) {
                break;
            }
        }

        return $days;
    }
}
'''),
    "dotnet": ("src/Meridian.Api/Endpoints/QuoteEndpoints.cs", '''using Meridian.Api.Quotes;
using Microsoft.AspNetCore.Http.HttpResults;

namespace Meridian.Api.Endpoints;

public static class QuoteEndpoints
{
    public static IEndpointRouteBuilder MapQuotes(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/quotes").WithTags("Quotes");
        group.MapGet("/{symbol}", GetQuote);
        group.MapGet("/", ListQuotes);
        return app;
    }

    static async Task<Ok<QuoteDto>> GetQuote(string symbol, IQuoteSource source, CancellationToken ct)
    {
        var quote = await source.LatestAsync(symbol.ToUpperInvariant(), ct);
        return TypedResults.Ok(QuoteDto.From(quote!));
    }

    static async Task<Ok<IReadOnlyList<QuoteDto>>> ListQuotes(IQuoteSource source, CancellationToken ct)
    {
        var all = await source.AllAsync(ct);
        return TypedResults.Ok<IReadOnlyList<QuoteDto>>(all.Select(QuoteDto.From).ToList());
    }
}
'''),
    "bun": ("src/ingest.ts", '''import type { Event, Sink } from "./types";

export interface IngestOptions {
  /** Events older than this many seconds are late. */
  windowSeconds: number;
  now?: () => number;
}

export class Ingest {
  private accepted = 0;
  private dropped = 0;

  constructor(private sink: Sink, private opts: IngestOptions) {}

  async push(batch: Event[]): Promise<{ accepted: number; dropped: number }> {
    const keep = batch.filter((e) => e.type !== "heartbeat");
    await this.sink.write(keep);
    this.accepted += keep.length;
    this.dropped += batch.length - keep.length;
    return { accepted: keep.length, dropped: batch.length - keep.length };
  }

  stats() {
    return { accepted: this.accepted, dropped: this.dropped };
  }
}
'''),
}

MANIFEST = {
    "flask": ("justfile", '''set dotenv-load

default:
    @just --list

test *args:
    poetry run pytest -q {{args}}

lint:
    poetry run ruff check linkshort tests
    poetry run mypy linkshort

serve:
    poetry run flask --app linkshort run --debug

migrate:
    poetry run flask --app linkshort db upgrade
'''),
    "gocli": ("Taskfile.yml", '''version: "3"

vars:
  BIN: ./bin/tally

tasks:
  build:
    cmds:
      - go build -o {{.BIN}} ./cmd/tally
  test:
    desc: Unit tests with the race detector
    cmds:
      - go test -race ./...
  lint:
    cmds:
      - golangci-lint run ./...
  release:
    deps: [test, lint]
    cmds:
      - goreleaser release --clean
'''),
    "tsmono": ("package.json", '''{
  "name": "atlas",
  "private": true,
  "packageManager": "pnpm@9.12.3",
  "scripts": {
    "build": "turbo run build",
    "test": "turbo run test",
    "lint": "turbo run lint",
    "changeset": "changeset"
  },
  "devDependencies": {
    "@changesets/cli": "^2.27.9",
    "turbo": "^2.2.3",
    "typescript": "^5.6.3"
  }
}
'''),
    "maven": ("pom.xml", '''<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>3.3.5</version>
  </parent>
  <groupId>com.acme</groupId>
  <artifactId>ledgerd</artifactId>
  <version>2.7.0-SNAPSHOT</version>
  <properties>
    <java.version>21</java.version>
  </properties>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.2.5</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-failsafe-plugin</artifactId>
        <version>3.2.5</version>
      </plugin>
    </plugins>
  </build>
</project>
'''),
    "gradle": ("core/build.gradle.kts", '''plugins {
    kotlin("jvm")
    `java-test-fixtures`
}

dependencies {
    implementation(project(":common"))
    implementation("io.micrometer:micrometer-core:1.13.6")
    testImplementation(kotlin("test"))
    testImplementation("org.junit.jupiter:junit-jupiter:5.11.3")
}

tasks.test {
    useJUnitPlatform()
    testLogging {
        events("failed")
        exceptionFormat = org.gradle.api.tasks.testing.logging.TestExceptionFormat.SHORT
    }
}
'''),
    "django": ("noxfile.py", '''import nox

nox.options.sessions = ["lint", "tests"]


@nox.session(python="3.12")
def lint(session):
    session.install("ruff")
    session.run("ruff", "check", ".")


@nox.session(python="3.12")
def tests(session):
    session.install("-r", "requirements/test.txt")
    session.run("python", "manage.py", "test", *session.posargs)
'''),
    "rails": ("Rakefile", '''# Add your own tasks in files placed in lib/tasks ending in .rake,
# for example lib/tasks/capistrano.rake, and they will automatically be available to Rake.

require_relative "config/application"

Rails.application.load_tasks

begin
  require "rspec/core/rake_task"
  RSpec::Core::RakeTask.new(:spec)
  task default: :spec
rescue LoadError
  # rspec is a development dependency
end
'''),
    "pantry": ("test/test_helper.rb", '''ENV["RAILS_ENV"] ||= "test"
require_relative "../config/environment"
require "rails/test_help"

module ActiveSupport
  class TestCase
    parallelize(workers: :number_of_processors, threshold: 50)
    fixtures :all
  end
end
'''),
    "nextest": ("justfile", '''# Workspace tasks. `just` lists them.

test:
    cargo nextest run --workspace

bench:
    cargo bench -p quarry-index

lint:
    cargo clippy --workspace --all-targets -- -D warnings
    cargo fmt --check
'''),
    "ctest": ("CMakeLists.txt", '''cmake_minimum_required(VERSION 3.24)
project(raster VERSION 0.9.0 LANGUAGES CXX)

set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)

add_library(raster src/image.cpp src/png.cpp src/jpeg.cpp src/resize.cpp src/color.cpp src/tiles.cpp)
target_include_directories(raster PUBLIC include)

enable_testing()
foreach(t png_decode png_encode jpeg_decode resize_nearest resize_bilinear resize_lanczos color_srgb color_linear tiles_split tiles_merge)
  add_executable(${t} tests/${t}.cpp)
  target_link_libraries(${t} PRIVATE raster)
  add_test(NAME ${t} COMMAND ${t})
endforeach()
add_test(NAME cli_smoke COMMAND raster-cli --version)
'''),
    "elixir": ("mix.exs", '''defmodule Relay.MixProject do
  use Mix.Project

  def project do
    [
      app: :relay,
      version: "0.8.1",
      elixir: "~> 1.17",
      start_permanent: Mix.env() == :prod,
      deps: deps(),
      aliases: aliases()
    ]
  end

  def application do
    [mod: {Relay.Application, []}, extra_applications: [:logger]]
  end

  defp deps do
    [
      {:phoenix, "~> 1.7.14"},
      {:phoenix_pubsub, "~> 2.1"},
      {:jason, "~> 1.4"}
    ]
  end

  defp aliases do
    [ci: ["format --check-formatted", "test --warnings-as-errors"]]
  end
end
'''),
    "php": ("composer.json", '''{
    "name": "acme/booking",
    "type": "project",
    "require": {
        "php": "^8.3",
        "laravel/framework": "^11.30",
        "nesbot/carbon": "^3.8"
    },
    "require-dev": {
        "phpunit/phpunit": "^11.4",
        "phpstan/phpstan": "^1.12"
    },
    "scripts": {
        "test": "vendor/bin/phpunit",
        "stan": "vendor/bin/phpstan analyse app --level=8"
    }
}
'''),
    "dotnet": ("tests/Meridian.Api.Tests/Meridian.Api.Tests.csproj", '''<Project Sdk="Microsoft.NET.Sdk">

  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <Nullable>enable</Nullable>
    <IsPackable>false</IsPackable>
  </PropertyGroup>

  <ItemGroup>
    <PackageReference Include="Microsoft.AspNetCore.Mvc.Testing" Version="8.0.10" />
    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="17.11.1" />
    <PackageReference Include="xunit" Version="2.9.2" />
    <PackageReference Include="xunit.runner.visualstudio" Version="2.8.2" />
  </ItemGroup>

  <ItemGroup>
    <ProjectReference Include="..\\..\\src\\Meridian.Api\\Meridian.Api.csproj" />
  </ItemGroup>

</Project>
'''),
    "bun": ("package.json", '''{
  "name": "pulse",
  "module": "src/index.ts",
  "type": "module",
  "scripts": {
    "dev": "bun --watch src/index.ts",
    "check": "tsc --noEmit && bun test",
    "test": "bun test"
  },
  "devDependencies": {
    "@types/bun": "latest",
    "typescript": "^5.6.3"
  }
}
'''),
}
