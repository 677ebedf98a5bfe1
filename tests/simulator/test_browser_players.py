"""Issue 32, Players, in a real Chromium against a real daphne server (HTTP + websockets) and database: practice
without an account, and the play page's layout at 1366×768 and on a 390×844 phone."""
from __future__ import annotations

import pytest

from simulator.services.library import practice_install

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BIG_BUTTON = (475, 285)  # the practice panel's big round red button, on the front view (0..1000)


def practise(chromium, base: str, width: int, height: int):
    """A fresh browser without an account, on the practice from the simulator's home page."""
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(15000)
    page.goto(f"{base}/simulator/")
    page.click("#practice-start")
    page.wait_for_selector("#conn.conn-ok")
    page.wait_for_function("document.getElementById('instruction').textContent.startsWith('Press the big')")
    return context, page


def tap(page) -> None:
    """Click (or tap) the big red button on the view image, scrolled into sight as a person would."""
    image = page.locator("#view-image")
    page.wait_for_function("(i => i.complete && i.naturalWidth > 0)(document.getElementById('view-image'))")
    box = image.bounding_box()
    image.click(position={"x": BIG_BUTTON[0] / 1000 * box["width"], "y": BIG_BUTTON[1] / 1000 * box["height"]})


def test_an_anonymous_visitor_practises_and_sees_the_view_buttons_at_1366x768(asgi_server, chromium):
    """"Practice bounces a first-time visitor to login without saying why (let anonymous visitors practise)"; "The
    view buttons are below the fold at 1366×768; a two-line instruction shifts the image ~30 px mid-episode"."""
    practice_install()
    context, page = practise(chromium, asgi_server, 1366, 768)
    assert "/accounts/login" not in page.url and page.locator("#guest-note").is_visible()
    assert page.evaluate("window.scrollY") == 0
    last_view = page.locator("#views button").last.bounding_box()
    assert last_view["y"] + last_view["height"] <= 768, last_view  # every view button without scrolling
    image_top = page.locator("#view-image").bounding_box()["y"]
    page.evaluate("document.getElementById('instruction').textContent = 'Look closer at the panel at the top left "
                  "(Look closer, V, then click it), then Double press (D) its small button.'")  # lesson 7
    assert page.locator("#instruction").bounding_box()["height"] > 40  # two lines now
    assert page.locator("#view-image").bounding_box()["y"] == image_top  # the image stays where it was
    page.keyboard.press("c")
    tap(page)
    page.wait_for_function("document.querySelectorAll('#log li').length === 1")
    assert page.locator("#goal-line-text").text_content() == "Goal 2 of 9"  # played without an account
    context.close()


def test_on_a_phone_the_feedback_of_a_tap_is_in_sight(asgi_server, chromium):
    """"on a phone the feedback appears below the image, out of sight after a tap"."""
    practice_install()
    context, page = practise(chromium, asgi_server, 390, 844)
    page.click('[data-tool="press0"]')
    tap(page)
    page.wait_for_function("document.querySelectorAll('#log li').length === 1")
    feedback = page.locator("#last-feedback")
    assert "light turns green" in feedback.text_content()
    rect = feedback.bounding_box()
    assert feedback.is_visible() and rect["y"] >= 0 and rect["y"] + rect["height"] <= 844, rect
    context.close()
