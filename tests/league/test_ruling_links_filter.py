"""The ``ruling_links`` filter: text escaped, every citation of a ruling a link to it."""

from __future__ import annotations

from django.template import Context, Template
from django.test import override_settings
from django.utils.safestring import mark_safe

from league.templatetags.rulings import ruling_links


def render(source: str, **context: object) -> str:
    return Template("{% load rulings %}" + source).render(Context(context))


def test_a_citation_becomes_a_link_to_its_section() -> None:
    assert ruling_links("barred (second ONR, R14).") == (
        'barred (second ONR, <a href="/rules/#r14">R14</a>).'
    )


def test_every_citation_of_a_text_is_linked() -> None:
    assert ruling_links("R16, R17 and R24") == (
        '<a href="/rules/#r16">R16</a>, <a href="/rules/#r17">R17</a> and '
        '<a href="/rules/#r24">R24</a>'
    )


def test_a_ruling_added_since_links_to_the_rulings_page() -> None:
    assert ruling_links("see R26") == 'see <a href="/rules/rulings/#r26">R26</a>'


def test_text_is_escaped_first_and_stays_safe() -> None:
    hostile = '<script>alert("R14")</script> R14 & <b onclick="x">'
    html = render("{{ text|ruling_links }}", text=hostile)
    assert "<script>" not in html and "<b " not in html
    assert html == (
        '&lt;script&gt;alert(&quot;<a href="/rules/#r14">R14</a>&quot;)&lt;/script&gt; '
        '<a href="/rules/#r14">R14</a> &amp; &lt;b onclick=&quot;x&quot;&gt;'
    )


def test_escaped_even_where_autoescape_is_off() -> None:
    html = render("{% autoescape off %}{{ text|ruling_links }}{% endautoescape %}", text="<i>R3")
    assert html == '&lt;i&gt;<a href="/rules/#r3">R3</a>'


def test_not_every_r_and_digits_is_a_citation() -> None:
    assert ruling_links("R140, TR14, R0, r14, R14b") == "R140, TR14, R0, r14, R14b"
    assert ruling_links("R14's bar") == '<a href="/rules/#r14">R14</a>&#x27;s bar'


def test_safe_html_is_linked_between_its_tags_only_and_never_inside_a_link() -> None:
    safe = mark_safe('<abbr title="R14">ONR</abbr> (R14) <a href="/x">R9</a>')
    assert ruling_links(safe) == (
        '<abbr title="R14">ONR</abbr> (<a href="/rules/#r14">R14</a>) <a href="/x">R9</a>'
    )


def test_a_translated_sentence_is_linked_in_the_readers_language() -> None:
    source = '{% load i18n %}{% translate "barred this season (second ONR, R14)" as cited %}'
    html = render(source + "{{ cited|ruling_links }}")
    assert html.endswith('(second ONR, <a href="/rules/#r14">R14</a>)')


@override_settings(SITE_URL="https://hockey.example/")
def test_html_emails_get_absolute_links_and_text_emails_the_guides_address() -> None:
    assert render('{{ "(R12)"|ruling_links:"absolute" }}') == (
        '(<a href="https://hockey.example/rules/#r12">R12</a>)'
    )
    assert render("{% rules_url %}") == "https://hockey.example/rules/"
