"""Rendering of every outgoing text from ``templates/<lang>/``, with jinja2.

``StrictUndefined``: a missing parameter is a bug, never an empty hole in a player's mail.
Player-written text only ever arrives as a parameter value (data), never as template source,
and autoescaping is off because the output is text/plain. A rendered template's first line
is the Subject, the rest is the body.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Mapping, MutableMapping
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jinja2
from jinja2 import meta

from pbem.mail.dates import DAYS, MONTHS, day_of_month
from pbem.mail.grammar import agree, agree_all, au, de, elide, gender_of

LANGS = ("fr", "en")


def templates_root() -> Path:
    """The ``templates/`` folder inside the package (package data); a renderer over other
    templates is given its root."""
    return Path(__file__).resolve().parents[1] / "templates"


class _Environment(jinja2.Environment):
    """jinja's environment, but ``x.key`` on a dict reads the key without first failing to
    read an attribute: the params are dicts (a receipt's lines, a tally's rows), and jinja
    asks ``getattr`` first, whose AttributeError costs more than the lookup (issue 23). A key
    it lacks is jinja's undefined at once (a receipt's ``a.text is defined``)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._loaded: dict[str, jinja2.Template] = {}

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` as jinja reads it, a plain dict's key read at once (the dict's own
        methods excepted)."""
        # a plain dict has no attribute but its class's: for any other name, jinja's own
        # getattr fails and reads the key, as here
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:  # jinja's answer, once getattr and the key both failed
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def _load_template(
        self, name: str, globals: MutableMapping[str, Any] | None
    ) -> jinja2.Template:
        """jinja's, for the templates loaded without extra globals (every one here: the
        renders' and each ``{% import %}``): each kept in a plain dict, its globals a plain
        dict too. An import asked jinja's LRU cache, whose hit scans its list of names, and
        then set-subtracted the imported template's ChainMap of globals key by key: half a
        tally's render (issue 23). The templates are fixed while the process runs
        (``auto_reload`` off), and so are the environment's globals once made."""
        if globals:
            return super()._load_template(name, globals)
        loaded = self._loaded.get(name)
        if loaded is None:
            loaded = super()._load_template(name, None)
            loaded.globals = dict(loaded.globals)
            self._loaded[name] = loaded
        return loaded


_DICT_ATTRIBUTES = frozenset(dir(dict))


class Renderer:
    """Renders templates by name and language; one instance per process is enough."""

    def __init__(self, root: Path | None = None, timezone: str = "UTC") -> None:
        self.root = root or templates_root()
        self.tz = ZoneInfo(timezone)
        self.envs = {lang: self._env(lang) for lang in LANGS}
        self._templates: dict[tuple[str, str], jinja2.Template] = {}
        """Compiled templates by (language, name): jinja's own cache is an LRU whose every
        hit scans a list of up to 400 names."""
        self._exists: dict[tuple[str, str], bool] = {}
        """Whether a template exists, by (template, language): the templates are fixed while
        the process runs (``auto_reload`` off), so one ``stat`` each, not one per refusal."""
        self._kept: dict[tuple[str, str, Hashable], tuple[str, str]] = {}
        """Rendered mails by (template, language, params' repr or content): :meth:`mail_kept`."""
        self._texts: dict[tuple[str, str, str], str] = {}
        """Rendered texts by (template, language, params' repr): :meth:`text_kept`."""
        self._reads: dict[tuple[str, str], frozenset[str] | None] = {}
        """The variables a template reads, by (language, name); None: not known (it includes
        or imports another): :meth:`reads`."""
        self._when: dict[tuple[str | datetime, str], str] = {}
        """Deadlines as written, by (value, language): a phase's deadline is written in
        every mail of the phase."""

    def _env(self, lang: str) -> jinja2.Environment:
        env = _Environment(
            loader=jinja2.FileSystemLoader(self.root / lang),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,  # templates are fixed while the process runs: no stat per mail
        )
        env.filters["when"] = lambda value: self.when(value, lang)
        env.filters["names"] = lambda value: join_names(value, lang)
        env.filters["duration"] = lambda value: duration(value, lang)
        env.filters["day"] = lambda value: day(value, lang)
        env.filters["g"] = agree
        env.filters["g_all"] = agree_all
        env.filters["gender"] = gender_of
        if lang == "fr":  # elision and contraction, done once here rather than in each sentence
            env.filters["elide"] = elide
            env.filters["de"] = de
            env.filters["au"] = au
        return env

    def when(self, value: str | datetime | None, lang: str) -> str:
        """A deadline as players read it: ``dimanche 29 novembre à 18:00 UTC``."""
        if value is None:
            return "—"
        written = self._when.get((value, lang))
        if written is None:
            if len(self._when) > 4096:  # a long-running daemon: bounded
                self._when.clear()
            written = self._when[value, lang] = self._write_when(value, lang)
        return written

    def _write_when(self, value: str | datetime, lang: str) -> str:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else value
        local = moment.astimezone(self.tz)
        day = DAYS[lang][local.weekday()]
        month = MONTHS[lang][local.month - 1]
        zone = local.tzname() or ""
        clock = f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"  # short demo phases
        if lang == "fr":
            return f"{day} {day_of_month(local.day, lang)} {month} à {clock} {zone}".strip()
        return f"{day} {local.day} {month} {clock} {zone}".strip()

    def exists(self, template: str, lang: str) -> bool:
        """Whether the template exists in ``lang`` (looked up once)."""
        found = self._exists.get((template, lang))
        if found is None:
            found = self._exists[template, lang] = (self.root / lang / f"{template}.txt").is_file()
        return found

    def reads(self, template: str, lang: str, variable: str) -> bool:
        """Whether ``template`` may read ``variable``: False only when its source never names
        it (a template that includes or imports another may read anything). A notice whose
        template never reads ``name`` says the same to each of its readers (issue 23)."""
        key = (lang, template)
        if key not in self._reads:
            env = self.envs[lang]
            assert env.loader is not None
            source = env.loader.get_source(env, f"{template}.txt")[0]
            tree = env.parse(source)
            others = list(meta.find_referenced_templates(tree))
            self._reads[key] = None if others else frozenset(meta.find_undeclared_variables(tree))
        read = self._reads[key]
        return read is None or variable in read

    def text(self, template: str, lang: str, params: Mapping[str, Any]) -> str:
        """Render ``template`` (without the ``.txt``) in ``lang``."""
        compiled = self._templates.get((lang, template))
        if compiled is None:
            # its globals a plain dict (_Environment._load_template): jinja's ChainMap was
            # copied key by key into every render's context
            compiled = self.envs[lang].get_template(f"{template}.txt")
            self._templates[lang, template] = compiled
        # Template.render, without its copies of the params and of the globals' keyword
        # arguments: the context is built here from one merged dict (one render a mail)
        env = compiled.environment
        context = env.context_class(
            env, {**compiled.globals, **params}, compiled.name, compiled.blocks, compiled.globals
        )
        try:
            rendered = env.concat(compiled.root_render_func(context))
        except Exception:
            env.handle_exception()  # raises, with the template's own line in the traceback
        return _trimmed(rendered)

    def mail(self, template: str, lang: str, params: Mapping[str, Any]) -> tuple[str, str]:
        """(subject, body): the rendered first line is the subject. The body is the mail's
        text/plain part as written, its spaces before « : ; ? ! » ordinary ones: only the HTML
        part makes them unbreakable (why: pbem.mail.html, ``_NBSP``)."""
        subject, _, body = self.text(template, lang, params).partition("\n")
        return subject.strip(), body.strip("\n") + "\n"

    def mail_kept(
        self,
        template: str,
        lang: str,
        params: Mapping[str, Any],
        content: Hashable | None = None,
    ) -> tuple[str, str]:
        """:meth:`mail`, kept by the params' ``repr`` for the mails many players are sent alike
        (a receipt says the same to each player who sent the same line in the same phase):
        ``params`` must be plain data (str, numbers, None, lists and dicts of them).
        ``content``: what tells these params apart, equal only for params that render alike,
        when the caller has it for less than their ``repr`` (a receipt's lines as tuples:
        the ``repr`` of its dicts was 3 % of a bot game, issue 23)."""
        key = (template, lang, repr(params) if content is None else content)
        kept = self._kept.get(key)
        if kept is None:
            if len(self._kept) > 1024:  # a long-running daemon: bounded
                self._kept.clear()
            kept = self._kept[key] = self.mail(template, lang, params)
        return kept

    def text_kept(self, template: str, lang: str, params: Mapping[str, Any]) -> str:
        """:meth:`text`, kept by the params' ``repr`` when they are plain data (str, numbers,
        None, lists, tuples and dicts of them): a refusal's reason recurs, word for word, to
        every player who sends the same refused line (issue 23). Other params are rendered
        each time (an object's ``repr`` may not tell its content)."""
        if not is_plain(params):
            return self.text(template, lang, params)
        key = (template, lang, repr(params))
        kept = self._texts.get(key)
        if kept is None:
            if len(self._texts) > 1024:  # a long-running daemon: bounded
                self._texts.clear()
            kept = self._texts[key] = self.text(template, lang, params)
        return kept

    def names(self) -> Iterable[str]:
        """Every template name (for the test that renders them all)."""
        for lang in LANGS:
            for path in sorted((self.root / lang).rglob("*.txt")):
                yield f"{lang}:{path.relative_to(self.root / lang).with_suffix('')}"


def _trimmed(rendered: str) -> str:
    """A rendered text without its blank first and last lines nor any line's trailing
    whitespace, but for "-- ", the signature separator mail clients look for, which keeps
    its trailing space. Trimmed in C, line by line (issue 23)."""
    lines = rendered.strip("\n").splitlines()
    trimmed = list(map(str.rstrip, lines))
    if "-- " in lines:  # most mails: one signature
        for at, line in enumerate(lines):
            if line == "-- ":
                trimmed[at] = line
    return "\n".join(trimmed)


@functools.lru_cache(maxsize=8)
def shared_renderer(timezone: str = "UTC") -> Renderer:
    """One compiled renderer per timezone, shared by every game of the process."""
    return Renderer(timezone=timezone)


def bilingual(renderer: Renderer, template: str, params: Mapping[str, Any]) -> tuple[str, str]:
    """(subject, body) of a daemon text for readers of either language: French first, then
    English (the daemon's own mails and the admins' alerts have no one reader's language)."""
    fr_subject, fr_body = renderer.mail(template, "fr", params)
    en_subject, en_body = renderer.mail(template, "en", params)
    return f"{fr_subject} / {en_subject}", f"{fr_body}\n----- English -----\n\n{en_body}"


_SCALARS = frozenset({str, int, float, bool, type(None)})


def is_plain(value: Any) -> bool:
    """Whether ``value`` is plain data, told apart by its ``repr``: str, numbers, None, and
    lists, tuples and dicts of them (by exact type: a subclass may ``repr`` otherwise)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is dict:
        return all(type(k) is str and is_plain(v) for k, v in value.items())
    if kind is list or kind is tuple:
        return all(is_plain(v) for v in value)
    return False


def join_names(value: Iterable[Any], lang: str) -> str:
    """``a, b and c`` / ``a, b et c``."""
    items = [str(v) for v in value]
    if not items:
        return "—"
    if len(items) == 1:
        return items[0]
    word = " et " if lang == "fr" else " and "
    return ", ".join(items[:-1]) + word + items[-1]


def day(value: object, lang: str) -> str:
    """A calendar day (ISO ``2027-01-12``) as players read it: ``mardi 12 janvier``,
    ``Tue 12 Jan`` (an absence's first and last days, issue 25)."""
    moment = date.fromisoformat(str(value))  # str(): a missing one raises as undefined
    weekday, month = DAYS[lang][moment.weekday()], MONTHS[lang][moment.month - 1]
    return f"{weekday} {day_of_month(moment.day, lang)} {month}"


def duration(seconds: float, lang: str) -> str:
    """``18 h``, ``1 h 30``, ``45 min``."""
    total = int(seconds)
    hours, minutes = divmod(total // 60, 60)
    if total < 60:
        return f"{total} s"
    if hours and minutes:
        return f"{hours} h {minutes:02d}"
    return f"{hours} h" if hours else f"{minutes} min"
