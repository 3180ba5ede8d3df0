"""Skills of distinct domains for the selection benchmark, written as real skills are.

Each has a name, a "what and when" description, sometimes tags, and a body of steps that
shares boilerplate with the others (as real collections do), so words like "file", "user" or
"report" appear everywhere and only the domain words tell the skills apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import NamedTuple


class Domain(NamedTuple):
    name: str
    description: str
    tags: tuple[str, ...]
    steps: tuple[str, ...]


DOMAINS = (
    Domain(
        "pdf-forms",
        "Fill in, flatten and read the fields of PDF forms (AcroForm). Use when a user needs a "
        "PDF form completed, wants the values typed into a form, or must sign a PDF.",
        ("pdf", "documents"),
        (
            "List the form fields with `pdftk form.pdf dump_data_fields` or pypdf.",
            "Map each value the user gave to a field name; ask about fields left blank.",
            "Write the values, then flatten the form so the answers cannot be edited.",
            "Check boxes take the export value of the field, not true or false.",
        ),
    ),
    Domain(
        "docx-reports",
        "Create and edit Word documents (.docx): headings, tables, styles, tracked changes and "
        "comments. Use when the deliverable is a Word file or a user sends a .docx to revise.",
        ("office", "documents"),
        (
            "Build the document with python-docx; use the built-in heading styles.",
            "Tables get a header row and the table style 'Light Grid'.",
            "When revising, keep tracked changes on so the author can accept each edit.",
            "Add comments for questions instead of guessing at the author's intent.",
        ),
    ),
    Domain(
        "xlsx-formulas",
        "Build Excel workbooks with formulas, named ranges, charts and pivot tables. Use when a "
        "user wants a spreadsheet model, a budget sheet or an .xlsx with working formulas.",
        ("office", "spreadsheets"),
        (
            "Write formulas, never pasted values, so the workbook recalculates.",
            "Name input cells and colour them blue; outputs are black.",
            "Add a pivot table on its own sheet when the user asks for a summary by category.",
            "Open the result in LibreOffice headless to recalculate and check for #REF! errors.",
        ),
    ),
    Domain(
        "pptx-slides",
        "Turn an outline or a document into a PowerPoint slide deck with speaker notes. Use "
        "when a user asks for slides, a presentation or a pitch deck.",
        ("office", "presentations"),
        (
            "One message per slide; a title that states the takeaway.",
            "At most five bullets per slide; move detail to the speaker notes.",
            "Use the template's layouts through python-pptx placeholders.",
            "Export a PDF copy for reviewers who cannot open PowerPoint.",
        ),
    ),
    Domain(
        "image-resize",
        "Resize, crop, convert and compress images (PNG, JPEG, WebP, AVIF) one by one or in "
        "batches. Use when a user needs thumbnails, smaller photos or another image format.",
        ("images",),
        (
            "Use Pillow; keep the aspect ratio unless the user asks for an exact box.",
            "Strip EXIF metadata from photos before publishing them.",
            "For the web, convert to WebP at quality 80 and keep the original next to it.",
            "Report the size in kilobytes before and after for every picture.",
        ),
    ),
    Domain(
        "k8s-deploy",
        "Deploy services to Kubernetes with manifests or Helm charts, roll out new versions and "
        "roll back. Use when a user deploys to a cluster or a pod keeps crashing.",
        ("kubernetes", "devops"),
        (
            "Check the context first: `kubectl config current-context`.",
            "Apply with `kubectl apply -f` or `helm upgrade --install`; watch the rollout.",
            "On CrashLoopBackOff read `kubectl logs --previous` and the pod events.",
            "Roll back with `kubectl rollout undo` when the new pods never become ready.",
        ),
    ),
    Domain(
        "terraform-plan",
        "Write and review Terraform for cloud infrastructure and apply changes safely. Use when "
        "a user edits .tf files, reads a terraform plan or provisions AWS, GCP or Azure resources.",
        ("infrastructure", "devops"),
        (
            "Run `terraform fmt` and `terraform validate` before anything else.",
            "Read the plan: every destroy or replace must be explained to the user.",
            "Keep state remote and locked; never edit the state file by hand.",
            "Pin provider versions in required_providers.",
        ),
    ),
    Domain(
        "dockerfile-review",
        "Write small, secure Dockerfiles with multi-stage builds and review existing ones. Use "
        "when a user containerizes an app or asks why a container image is so large.",
        ("containers", "devops"),
        (
            "Start from a slim or distroless base image pinned by digest.",
            "Use a multi-stage build: compile in one stage, copy only the artefact.",
            "Run as a non-root user; add a HEALTHCHECK.",
            "Order layers so dependency installs are cached between builds.",
        ),
    ),
    Domain(
        "sql-migrations",
        "Write reversible database schema migrations for PostgreSQL and MySQL (Alembic, Flyway, "
        "Django). Use when a table or column must be added, renamed or dropped.",
        ("database", "sql"),
        (
            "Every migration has an upgrade and a downgrade.",
            "Add columns as nullable first, backfill in batches, then add the constraint.",
            "Create indexes concurrently on large PostgreSQL tables.",
            "Never rename a column in one step under live traffic: add, copy, switch, drop.",
        ),
    ),
    Domain(
        "sql-query-tuning",
        "Speed up slow SQL queries using EXPLAIN ANALYZE, indexes and rewrites. Use when a query "
        "is slow, a database is under load or a report times out.",
        ("database", "sql", "performance"),
        (
            "Run EXPLAIN (ANALYZE, BUFFERS) and find the step with the most time.",
            "A sequential scan over a big table with a selective filter wants an index.",
            "Replace correlated subqueries with joins; avoid functions on indexed columns.",
            "Measure again after each change and keep the numbers.",
        ),
    ),
    Domain(
        "python-tests",
        "Write pytest unit tests with fixtures, parametrize and coverage for Python code. Use "
        "when a user asks for tests, a function has none, or a bug needs a regression test.",
        ("python", "testing"),
        (
            "One behaviour per test; name the test after the behaviour.",
            "Use fixtures for setup and `pytest.mark.parametrize` for tables of cases.",
            "Reproduce a bug with a failing test before fixing it.",
            "Run `pytest --cov` and look at the uncovered branches.",
        ),
    ),
    Domain(
        "js-lint-fix",
        "Fix ESLint and Prettier errors in JavaScript and TypeScript projects. Use when lint "
        "fails in CI, a user pastes eslint output, or code style must be made consistent.",
        ("javascript", "typescript"),
        (
            "Run `npx eslint . --fix` first; fix what remains by hand.",
            "Do not disable a rule inline without a comment saying why.",
            "Let Prettier own formatting; turn off ESLint's stylistic rules.",
            "For TypeScript, run `tsc --noEmit` as well.",
        ),
    ),
    Domain(
        "security-audit",
        "Scan code and dependencies for vulnerabilities, leaked secrets and OWASP Top 10 "
        "issues. Use when a user asks if code is secure, before a release, or after a CVE.",
        ("security",),
        (
            "Scan dependencies with `pip-audit`, `npm audit` or osv-scanner.",
            "Search the history for secrets with gitleaks; rotate anything found.",
            "Check input handling for SQL injection, XSS and path traversal.",
            "Rank findings by severity and exploitability.",
        ),
    ),
    Domain(
        "accessibility-audit",
        "Check web pages against WCAG 2.2: colour contrast, alt text, keyboard navigation, "
        "ARIA and screen readers. Use when a user asks whether a site is accessible.",
        ("web", "a11y"),
        (
            "Run axe or Lighthouse and list every violation with its WCAG criterion.",
            "Tab through the page: focus must be visible and follow reading order.",
            "Images need alt text; decorative images get an empty alt.",
            "Text contrast must reach 4.5:1.",
        ),
    ),
    Domain(
        "meeting-notes",
        "Turn a meeting transcript or rough notes into minutes with decisions, owners and "
        "action items. Use after a call, standup or workshop.",
        ("writing",),
        (
            "Start with the decisions, then action items with an owner and a due date.",
            "Attribute opinions only when the transcript names the speaker.",
            "Keep the minutes under one page; link the transcript.",
            "List open questions separately.",
        ),
    ),
    Domain(
        "email-drafts",
        "Draft clear professional emails and replies in the tone the user wants. Use when a "
        "user needs to write, answer or follow up on an email.",
        ("writing",),
        (
            "Put the request or the answer in the first two sentences.",
            "Match the tone: formal for customers, brief for colleagues.",
            "Offer a subject line.",
            "For a difficult reply, acknowledge, answer, then propose a next step.",
        ),
    ),
    Domain(
        "translate-docs",
        "Translate documents between languages, keeping formatting, placeholders and a "
        "glossary of terms. Use when text must be in another language.",
        ("language",),
        (
            "Ask for the target language and the audience when they are not given.",
            "Keep markdown, HTML tags and {placeholders} unchanged.",
            "Use the glossary for product terms; never translate brand names.",
            "Flag idioms that have no direct equivalent.",
        ),
    ),
    Domain(
        "invoice-extract",
        "Extract vendor, dates, line items, VAT and totals from invoices and receipts (PDF or "
        "photos) into structured data. Use for bookkeeping and accounts payable.",
        ("finance", "documents"),
        (
            "Read the invoice number, issue date, due date and vendor tax ID.",
            "Each line item: description, quantity, unit price, tax rate, amount.",
            "Check that line items add up to the subtotal and the tax to the total.",
            "Output JSON, with null for fields the document does not show.",
        ),
    ),
    Domain(
        "expense-report",
        "Categorise expenses and build a monthly expense report with totals per category. "
        "Use when a user hands over receipts or a card statement to be reimbursed.",
        ("finance",),
        (
            "Assign each expense a category: travel, meals, lodging, supplies, software.",
            "Convert foreign currencies at the rate of the transaction date.",
            "Flag expenses over the policy limit and those without a receipt.",
            "End with a total per category and a grand total.",
        ),
    ),
    Domain(
        "sales-forecast",
        "Forecast revenue and demand from historical sales with trend and seasonality. Use "
        "when a user wants next quarter's numbers or a sales projection.",
        ("finance", "analytics"),
        (
            "Plot the history first and look for seasonality and outliers.",
            "Fit a seasonal model (ETS or Prophet) and hold out the last periods.",
            "Report the forecast with an interval, never a single number.",
            "Explain the assumptions behind growth.",
        ),
    ),
    Domain(
        "ab-test-analysis",
        "Analyse A/B test and experiment results: conversion rates, statistical significance, "
        "confidence intervals and sample size. Use when a user asks whether variant B won.",
        ("analytics", "statistics"),
        (
            "Check the sample ratio first; a mismatch invalidates the test.",
            "Compare conversion with a two-proportion z-test and give the p-value.",
            "Report the lift with a 95% confidence interval.",
            "Compute the sample size needed when the test is underpowered.",
        ),
    ),
    Domain(
        "log-triage",
        "Read application logs and stack traces to find the root cause of errors and "
        "exceptions. Use when a service throws errors, crashes or a user pastes a traceback.",
        ("debugging", "operations"),
        (
            "Find the first error, not the loudest one; later errors are often consequences.",
            "Read the stack trace from the bottom frame in the user's code.",
            "Correlate timestamps with deploys and configuration changes.",
            "Propose a fix and a log line that would have shown the cause sooner.",
        ),
    ),
    Domain(
        "incident-postmortem",
        "Write a blameless postmortem after an outage or incident: timeline, impact, root "
        "cause and follow-up actions. Use once an incident is resolved.",
        ("operations",),
        (
            "Build the timeline from alerts, chat and deploy history, in UTC.",
            "State the customer impact with numbers and duration.",
            "Ask five whys; stop at causes the team can change.",
            "Follow-up actions each get an owner and a ticket.",
        ),
    ),
    Domain(
        "oncall-runbook",
        "Write runbooks for alerts so the on-call engineer knows what to check and do. Use "
        "when an alert has no runbook or pages someone at night.",
        ("operations",),
        (
            "Start with what the alert means and how urgent it is.",
            "List the dashboards and commands to diagnose, in order.",
            "Give the mitigation steps and when to escalate.",
            "Link the runbook from the alert definition.",
        ),
    ),
    Domain(
        "regex-builder",
        "Build, explain and test regular expressions for matching and extracting text. Use when "
        "a user needs a regex or cannot read one.",
        ("text",),
        (
            "Ask for examples that must match and examples that must not.",
            "Anchor the pattern and prefer explicit character classes to `.*`.",
            "Explain the regex piece by piece.",
            "Test it against every example and show the captured groups.",
        ),
    ),
    Domain(
        "cron-schedules",
        "Write and explain cron expressions and schedule recurring jobs (crontab, systemd "
        "timers, Kubernetes CronJobs). Use when something must run every night or every hour.",
        ("scheduling",),
        (
            "State the time zone; cron runs in the server's zone.",
            "Give the expression and its plain-language meaning with the next five runs.",
            "Make the job idempotent and prevent overlapping runs with a lock.",
            "Send output to a log, not to local mail.",
        ),
    ),
    Domain(
        "git-rebase-help",
        "Untangle git history: resolve merge conflicts, rebase, cherry-pick, bisect and recover "
        "lost commits with the reflog. Use when a user is stuck in git.",
        ("git",),
        (
            "Run `git status` and read it before any other command.",
            "Resolve conflicts file by file; keep both sides when unsure and ask.",
            "Recover lost work with `git reflog`; nothing committed is truly lost.",
            "Never force-push a shared branch without telling the team.",
        ),
    ),
    Domain(
        "web-scraping",
        "Scrape websites politely with requests and BeautifulSoup or Playwright: pagination, "
        "robots.txt, rate limits. Use when data must be collected from web pages.",
        ("web", "data"),
        (
            "Read robots.txt and the terms of service first.",
            "Throttle requests and set a User-Agent that names the contact.",
            "Parse with CSS selectors; handle pagination until the last page.",
            "Save raw HTML so parsing can be rerun without fetching again.",
        ),
    ),
    Domain(
        "seo-audit",
        "Audit a website for search engine optimisation: titles, meta descriptions, headings, "
        "sitemaps, canonical URLs and page speed. Use when a site should rank better on Google.",
        ("web", "marketing"),
        (
            "Each page needs a unique title under 60 characters and a meta description.",
            "Check the sitemap.xml and robots.txt.",
            "Find duplicate content and set canonical URLs.",
            "Measure Core Web Vitals.",
        ),
    ),
    Domain(
        "social-posts",
        "Write social media posts for LinkedIn, X and Instagram with hooks and hashtags. Use "
        "when a user announces something or promotes content online.",
        ("marketing", "writing"),
        (
            "Open with a hook in the first line.",
            "Adapt length to the network: short for X, longer for LinkedIn.",
            "At most three hashtags.",
            "End with a call to action.",
        ),
    ),
    Domain(
        "resume-review",
        "Review CVs, résumés and cover letters and tailor them to a job posting. Use when a "
        "user applies for a job or asks for feedback on their resume.",
        ("career",),
        (
            "Compare the resume with the job posting's requirements.",
            "Rewrite bullets as achievements with numbers.",
            "Keep it to one page for under ten years of experience.",
            "Check the cover letter names the company and the role.",
        ),
    ),
    Domain(
        "legal-contract-review",
        "Review contracts and NDAs for risky clauses: liability, indemnity, termination, "
        "renewal and governing law. Use when a user must sign an agreement.",
        ("legal",),
        (
            "Summarise the parties, term, payment and termination rights.",
            "Flag unlimited liability, one-sided indemnities and auto-renewal.",
            "Note the governing law and jurisdiction.",
            "Say clearly that this is not legal advice.",
        ),
    ),
    Domain(
        "recipe-scaling",
        "Scale cooking recipes up or down, convert units (cups, grams, ounces) and adjust "
        "baking times. Use when a user cooks for more or fewer people.",
        ("cooking",),
        (
            "Scale every ingredient by the same factor; round to sensible kitchen measures.",
            "Convert cups to grams per ingredient: flour and sugar differ.",
            "Baking time does not scale linearly with pan size; check doneness.",
            "Eggs round to whole eggs; adjust liquid to compensate.",
        ),
    ),
    Domain(
        "latex-papers",
        "Format academic papers in LaTeX with BibTeX citations, figures and journal "
        "templates. Use when a user writes a paper or thesis or a LaTeX build fails.",
        ("academic", "writing"),
        (
            "Use the journal's class file.",
            "Manage references in a .bib file and cite with \\cite.",
            "Place figures with [t] and refer to them with \\ref.",
            "Build with latexmk and read the first error in the log.",
        ),
    ),
    Domain(
        "diagram-mermaid",
        "Draw architecture, sequence and flow diagrams as code with Mermaid or PlantUML. Use "
        "when a user wants a diagram of a system, a process or an API call flow.",
        ("diagrams", "documentation"),
        (
            "Pick the diagram type: flowchart, sequence, class or C4 container.",
            "Keep it under fifteen boxes; split larger systems.",
            "Label every arrow with what flows along it.",
            "Render it to check the layout before handing it over.",
        ),
    ),
    Domain(
        "api-mocking",
        "Mock HTTP APIs in tests with WireMock, responses or MSW so tests run without the real "
        "service. Use when tests depend on a third-party API.",
        ("testing", "api"),
        (
            "Record a real response once and replay it.",
            "Mock at the HTTP boundary, not inside the client.",
            "Cover error responses: 429, 500 and timeouts.",
            "Fail the test on any unmatched request.",
        ),
    ),
    Domain(
        "data-cleaning",
        "Clean messy tabular data: remove duplicates, normalise dates and text, fix encodings and "
        "fill or drop missing values with pandas. Use before analysis of a dirty dataset.",
        ("data", "pandas"),
        (
            "Load with pandas and keep the raw file untouched.",
            "Parse dates explicitly with a format; normalise time zones.",
            "Trim whitespace, unify case, and fix mojibake from wrong encodings.",
            "Log every row dropped and why.",
        ),
    ),
    Domain(
        "dashboard-charts",
        "Build charts and dashboards from metrics with matplotlib, Plotly or Grafana. Use when "
        "a user wants to visualise data, plot a trend or set up a dashboard.",
        ("visualization", "analytics"),
        (
            "Pick the chart for the question: line for trends, bar for comparisons.",
            "Label axes with units; start bar charts at zero.",
            "One idea per chart; a dashboard shows at most six panels.",
            "Use a colour-blind-safe palette.",
        ),
    ),
    Domain(
        "ml-training",
        "Train and evaluate machine learning models with scikit-learn: train/test splits, "
        "cross-validation, metrics and hyperparameter search. Use when a user builds a classifier.",
        ("machine-learning", "python"),
        (
            "Split before any preprocessing to avoid leakage.",
            "Start with a simple baseline model.",
            "Use cross-validation and report precision, recall and F1 for classifiers.",
            "Tune hyperparameters with a grid or random search.",
        ),
    ),
    Domain(
        "prompt-engineering",
        "Write and refine prompts for large language models: instructions, few-shot examples "
        "and evaluations. Use when a user's LLM prompt gives poor or inconsistent answers.",
        ("llm",),
        (
            "State the task, the audience and the output format.",
            "Add two or three few-shot examples covering edge cases.",
            "Build a small eval set and compare prompt versions on it.",
            "Change one thing at a time.",
        ),
    ),
    Domain(
        "i18n-strings",
        "Prepare an app for localisation: extract UI strings, plural rules (ICU, gettext) and "
        "locale formats for dates and numbers. Use when an app must support more languages.",
        ("localization",),
        (
            "Move every user-visible string into message catalogs.",
            "Use ICU plural and select rules, never string concatenation.",
            "Format dates, numbers and currencies with the locale.",
            "Leave room for text that grows 30% in translation.",
        ),
    ),
    Domain(
        "oauth-setup",
        "Configure OAuth 2.0 and OpenID Connect sign-in: authorization code flow with PKCE, "
        "tokens, scopes and refresh. Use when an app adds login with Google or GitHub.",
        ("auth", "security"),
        (
            "Use the authorization code flow with PKCE for browser and mobile apps.",
            "Validate the ID token's signature, issuer, audience and expiry.",
            "Store refresh tokens server-side only.",
            "Request the fewest scopes that work.",
        ),
    ),
    Domain(
        "perf-profiling",
        "Profile CPU time and memory of Python programs to find hotspots, with cProfile, py-spy "
        "and tracemalloc. Use when a program is slow or uses too much memory.",
        ("python", "performance"),
        (
            "Reproduce the slowness with a fixed input first.",
            "Record a profile with py-spy or cProfile and sort by cumulative time.",
            "For memory, compare tracemalloc snapshots.",
            "Optimise the top hotspot only, then measure again.",
        ),
    ),
    Domain(
        "video-subtitles",
        "Transcribe audio and video and create subtitles (SRT, VTT) synced to speech, with "
        "ffmpeg and Whisper. Use when a video needs captions or a recording needs a transcript.",
        ("media",),
        (
            "Extract the audio track with ffmpeg.",
            "Transcribe with Whisper and keep word timestamps.",
            "Cut captions at two lines of at most 42 characters.",
            "Burn in or attach the subtitle file as the user prefers.",
        ),
    ),
    Domain(
        "budget-planner",
        "Plan a personal or household monthly budget: income, fixed costs, savings goals and "
        "debt payoff. Use when a user wants to save money or manage their spending.",
        ("personal-finance",),
        (
            "List net income and fixed costs first.",
            "Apply a 50/30/20 split as a starting point.",
            "Pay off debt with the avalanche or snowball method.",
            "Review the budget against real spending every month.",
        ),
    ),
)

_BOILERPLATE = (
    "## Before you start\n\nRead the user's request and the files they shared. Ask for what "
    "is missing instead of guessing, and say which assumptions you made.\n\n"
    "## Report\n\nTell the user what you did, what you could not check, and what they should "
    "review. Keep the answer short and link the files you produced.\n"
)


def skill_md(domain: Domain) -> str:
    """The SKILL.md of one domain skill."""
    tags = f"tags: [{', '.join(domain.tags)}]\n" if domain.tags else ""
    title = domain.name.replace("-", " ").capitalize()
    steps = "\n".join(f"{number}. {step}" for number, step in enumerate(domain.steps, 1))
    return (
        f"---\nname: {domain.name}\ndescription: {json.dumps(domain.description)}\n{tags}---\n\n"
        f"# {title}\n\n{_BOILERPLATE}\n## Steps\n\n{steps}\n"
    )


def domain_skills() -> Iterator[tuple[str, str]]:
    """``(name, SKILL.md)`` of every domain skill."""
    for domain in DOMAINS:
        yield domain.name, skill_md(domain)
