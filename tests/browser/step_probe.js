// Appended to a copy of an explain page by pages_test.sh: steps back with the ◀ button, then drags the
// slider to step 1, and writes which decision the candidate table showed each time into
// document.body.dataset.stepped.
(() => {
  const slider = document.getElementById("step-slider");
  const seen = [];
  const showing = () => `${document.getElementById("step-label").dataset.step}:${
                            document.getElementById("candidates").dataset.op}:` +
      [...document.querySelectorAll("rect.planned")].filter((r) => !r.classList.contains("hidden")).length;
  const back = [...document.querySelectorAll("button")].find((b) => b.textContent === "◀");
  back.click();
  seen.push(showing());
  slider.value = "1";
  slider.dispatchEvent(new Event("input", {bubbles: true}));
  seen.push(showing());
  const want = ["9:n8:9", "1:n1:1"];
  const ok = seen.join() === want.join();
  document.body.dataset.stepped =
      `${ok ? "ok" : "wrong"}: step:op:placed ${seen.join(", ")} (want ${want.join(", ")})`;
})();
