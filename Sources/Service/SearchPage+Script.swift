extension SearchPage {
    /// Searches as the person types (debounced; an answer older than the one shown is
    /// dropped), keeps the query, the platform and the apps on the device in the address
    /// (and the apps in localStorage), shows the answer's real count and a "More results"
    /// control that pages through every result the API serves, and reports impressions and
    /// clicks with the token of the answer that showed them.
    static let script = #"""
        "use strict";
        (() => {
          const $ = (id) => document.getElementById(id);
          const input = $("q"), list = $("results"), status = $("status"), correction = $("correction"), failure = $("error"), more = $("more");
          const appList = $("app-list"), installedCount = $("installed-count"), installedOnly = $("installed-only");
          const stored = (key, fallback) => { try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; } };
          const store = (key, value) => { try { localStorage.setItem(key, JSON.stringify(value)); } catch {} };
          const state = { platform: "ios", installed: [], known: stored("searchlight.knownApps", {}), sent: 0, shown: 0, timer: 0, results: [], page: null };
          /// Results asked for at once; the API serves the first 1,000 of an answer (offset + limit).
          const pageSize = 20, reachable = 1000;

          function readAddress() {
            const params = new URLSearchParams(location.search);
            input.value = params.get("q") ?? "";
            const platform = params.get("platform") ?? stored("searchlight.platform", "ios");
            state.platform = platform === "android" ? "android" : "ios";
            state.installed = params.has("installed")
              ? params.get("installed").split(",").map((s) => s.trim()).filter(Boolean)
              : stored("searchlight.installed", []);
            installedOnly.checked = params.get("installedOnly") === "1";
            for (const radio of document.querySelectorAll('input[name="platform"]')) radio.checked = radio.value === state.platform;
          }

          function writeAddress() {
            const params = new URLSearchParams();
            if (input.value.trim()) params.set("q", input.value.trim());
            params.set("platform", state.platform);
            if (state.installed.length) params.set("installed", state.installed.join(","));
            if (installedOnly.checked) params.set("installedOnly", "1");
            history.replaceState(null, "", "?" + params.toString());
          }

          function search(now) {
            clearTimeout(state.timer);
            if (!now) { state.timer = setTimeout(() => search(true), 150); return; }
            writeAddress();
            const query = input.value.trim();
            const ticket = ++state.sent;
            if (!query) {
              state.shown = ticket;
              show({ results: [] }, "");
              status.textContent = "Type to search apps and their pages.";
              return;
            }
            const params = new URLSearchParams({ q: query, platform: state.platform, limit: String(pageSize), snippets: "1", typing: "1" });
            if (state.installed.length) params.set("installed", state.installed.join(","));
            if (installedOnly.checked) params.set("installedOnly", "1");
            status.textContent = "Searching…";
            more.hidden = true;
            fetch("/v1/search?" + params.toString(), { headers: { Accept: "application/json" } })
              .then(async (response) => {
                const body = await response.json().catch(() => null);
                if (ticket < state.shown) return;
                state.shown = ticket;
                if (!response.ok) throw new Error(body?.error?.message ?? `the search failed (HTTP ${response.status})`);
                show(body, query, params, ticket);
              })
              .catch((error) => {
                if (ticket < state.shown) return;
                state.shown = ticket;
                showError(error.message.startsWith("the ") ? error.message : "the search service cannot be reached (" + error.message + ")");
              });
          }

          function showError(message) {
            // Old results would read as answers to the new query.
            list.replaceChildren();
            correction.hidden = true;
            more.hidden = true;
            state.results = [];
            state.page = null;
            failure.hidden = false;
            failure.textContent = "Sorry — " + message + ".";
            status.textContent = "The search did not work.";
          }

          function show(body, query, params, ticket) {
            failure.hidden = true;
            list.replaceChildren();
            more.hidden = true;
            state.results = body.results ?? [];
            state.page = null;
            // The service already searched the corrected spellings: say so, honestly, and
            // offer the corrected query as a link to search it alone.
            const corrected = Object.entries(body.corrections ?? {});
            correction.hidden = corrected.length === 0 || state.results.length === 0;
            correction.replaceChildren();
            if (corrected.length && state.results.length) {
              let fixed = query;
              for (const [typed, spellings] of corrected) fixed = fixed.replace(typed, spellings[0]);
              const button = document.createElement("button");
              button.type = "button";
              button.textContent = fixed;
              button.addEventListener("click", () => { input.value = fixed; search(true); input.focus(); });
              correction.append("Showing results for ", button);
            }
            if (!query) return;
            if (state.results.length === 0) {
              status.textContent = `No results for “${query}”. Try fewer or other words.`;
              return;
            }
            state.page = { query, params, ticket, total: body.estimatedTotalHits ?? state.results.length,
                           exact: body.totalHitsExact !== false, anyWord: !!body.matchedAnyWord, loading: false };
            append(body, query);
          }

          /// Adds an answer's results under those shown, counts them in the status line and
          /// offers the next page while the answer has more.
          function append(body, query) {
            const page = state.page;
            const results = body.results ?? [];
            const token = body.engagementToken ?? null;
            const first = list.children.length;
            if (first > 0) state.results = state.results.concat(results);
            rememberApps(results);
            results.forEach((result, index) => list.append(render(result, first + index, query, token)));
            report(query, results.map((r) => ({ id: r.id, type: "impression" })), token);
            // A later page may count more precisely than the first.
            if (typeof body.estimatedTotalHits === "number") {
              page.total = Math.max(body.estimatedTotalHits, list.children.length);
              page.exact = body.totalHitsExact !== false;
            }
            const shown = list.children.length;
            const finished = results.length < pageSize || (page.exact && shown >= page.total) || shown >= reachable;
            if (finished && page.total < shown) page.total = shown;
            const count = page.exact || finished ? page.total.toLocaleString() : `More than ${page.total.toLocaleString()}`;
            const noun = page.total === 1 && (page.exact || finished) ? "result" : "results";
            let line = `${count} ${noun} for “${query}”` + (page.anyWord ? " (matching some of the words)" : "");
            if (shown < page.total || !page.exact) line += ` · showing ${shown.toLocaleString()}`;
            if (finished && shown >= reachable && page.total > shown) line += " · refine the query to see the rest";
            status.textContent = line;
            more.hidden = finished;
          }

          function loadMore() {
            const page = state.page;
            if (!page || page.loading || page.ticket !== state.sent) return;
            page.loading = true;
            more.disabled = true;
            const params = new URLSearchParams(page.params);
            const offset = list.children.length;
            params.set("offset", String(offset));
            params.set("limit", String(Math.min(pageSize, reachable - offset)));
            fetch("/v1/search?" + params.toString(), { headers: { Accept: "application/json" } })
              .then(async (response) => {
                const body = await response.json().catch(() => null);
                // A new search since: its answer owns the list.
                if (state.page !== page || page.ticket !== state.sent) return;
                if (!response.ok) throw new Error(body?.error?.message ?? `the search failed (HTTP ${response.status})`);
                append(body, page.query);
              })
              .catch((error) => {
                if (state.page !== page) return;
                status.textContent = "Sorry — more results could not be loaded (" + error.message + ").";
              })
              .finally(() => { page.loading = false; more.disabled = false; });
          }

          function text(tag, className, content) {
            const element = document.createElement(tag);
            if (className) element.className = className;
            if (content !== undefined) element.textContent = content;
            element.dir = "auto";
            return element;
          }

          /// The snippet's matches, given as [start, end) UTF-16 ranges, become <mark> elements.
          function highlighted(result) {
            const paragraph = text("p", "desc");
            const snippet = result.snippet;
            let at = 0;
            for (const [start, end] of result.snippetHighlights ?? []) {
              if (start < at || end <= start || end > snippet.length) continue;
              if (start > at) paragraph.append(document.createTextNode(snippet.slice(at, start)));
              paragraph.append(text("mark", "", snippet.slice(start, end)));
              at = end;
            }
            if (at < snippet.length) paragraph.append(document.createTextNode(snippet.slice(at)));
            return paragraph;
          }

          function appFor(result) {
            return (result.apps ?? []).find((app) => app.platform === state.platform) ?? null;
          }

          /// What people call the app: its name on this platform, else on the other one (one
          /// app, two stores), else the name another result gave the same app; null when no
          /// page names it (never its store id or package name).
          function appName(result, app) {
            const known = app && state.known[appID(app)]?.name;
            return app?.name ?? (result.apps ?? []).find((other) => other.name)?.name
              ?? (known && known !== appID(app) ? known : null);
          }

          function actionLabel(result) {
            const name = appName(result, appFor(result)) ?? "the app";
            switch (result.action?.type) {
              case "open-app": return `Open in ${name}`;
              case "install-app": return `Get ${name} on ${state.platform === "android" ? "Google Play" : "the App Store"}`;
              default: return "Open web page";
            }
          }

          function render(result, index, query, token) {
            const item = document.createElement("li");
            item.className = "result";
            item.dataset.index = index;
            const placeholder = () => { const box = document.createElement("div"); box.className = "thumb"; return box; };
            const thumb = result.thumbnail ? document.createElement("img") : placeholder();
            if (result.thumbnail) {
              thumb.className = "thumb";
              thumb.alt = "";
              thumb.loading = "lazy";
              thumb.src = result.thumbnail;
              // A picture that does not load leaves the same grey box as a result without one.
              thumb.addEventListener("error", () => thumb.replaceWith(placeholder()));
            }
            const body = document.createElement("div");
            const title = text("h2", "");
            const link = document.createElement("a");
            link.href = result.url ?? result.action?.url ?? "#";
            link.textContent = result.title || result.url || result.id;
            link.dir = "auto";
            link.addEventListener("click", () => report(query, [{ id: result.id, type: "click" }], token));
            title.append(link);
            body.append(title);
            const meta = text("p", "meta");
            meta.append(result.domain ?? "");
            if (typeof result.rating === "number") {
              const scale = result.ratingScale ?? 5;
              const filled = Math.round((result.rating / scale) * 5);
              const stars = text("span", "stars", "★".repeat(filled) + "☆".repeat(5 - filled));
              stars.setAttribute("role", "img");
              stars.setAttribute("aria-label", `Rated ${result.rating} out of ${scale}` + (result.ratingCount ? `, ${result.ratingCount} ratings` : ""));
              meta.append(" · ", stars, ` ${result.rating}` + (result.ratingCount ? ` (${result.ratingCount})` : ""));
            }
            if (result.price) meta.append(" · " + formatPrice(result.price, result.currency));
            body.append(meta);
            const description = result.snippet || result.description;
            if (description) body.append(result.snippet ? highlighted(result) : text("p", "desc", description));
            const app = appFor(result);
            // People see an app's name, never its store id or package name; an app no page
            // names gets no badge (a letter of "the app" would look like its name's).
            const name = app && appName(result, app);
            if (name) {
              const line = text("p", "app");
              const icon = text("span", "icon", Array.from(name)[0]?.toUpperCase() ?? "A");
              icon.setAttribute("aria-hidden", "true");
              icon.style.background = colourFor(name);
              line.append(icon, name + (installedApp(app) ? " — on this device" : ""));
              body.append(line);
            } else if (app && installedApp(app)) {
              body.append(text("p", "app", "An app on this device"));
            }
            const action = document.createElement("button");
            action.type = "button";
            action.className = "action" + (result.action?.type === "open-web" ? " web" : "");
            action.textContent = actionLabel(result);
            action.dataset.action = result.action?.type ?? "open-web";
            action.addEventListener("click", () => {
              report(query, [{ id: result.id, type: "click" }], token);
              if (result.action?.url) location.href = result.action.url;
            });
            item.append(thumb, body, action);
            return item;
          }

          function formatPrice(price, currency) {
            const amount = Number(price);
            if (currency && Number.isFinite(amount)) {
              try { return new Intl.NumberFormat(document.documentElement.lang, { style: "currency", currency }).format(amount); } catch {}
            }
            return currency ? `${price} ${currency}` : String(price);
          }

          function colourFor(name) {
            let hash = 0;
            for (const ch of name) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
            return `hsl(${hash % 360} 55% 32%)`;
          }

          const appID = (app) => app.platform === "android" ? app.package : app.appStoreId;
          const installedApp = (app) => state.installed.includes(appID(app));

          function rememberApps(results) {
            for (const result of results) {
              for (const app of result.apps ?? []) {
                const id = appID(app);
                const name = appName(result, app);
                if (id && (!state.known[id] || state.known[id].name === id)) state.known[id] = { name: name ?? id, platform: app.platform };
              }
            }
            store("searchlight.knownApps", state.known);
            drawApps();
          }

          function drawApps() {
            appList.replaceChildren();
            const ids = new Set([...Object.keys(state.known), ...state.installed]);
            for (const id of [...ids].sort()) {
              const known = state.known[id];
              const row = document.createElement("li");
              const label = document.createElement("label");
              const box = document.createElement("input");
              box.type = "checkbox";
              box.value = id;
              box.checked = state.installed.includes(id);
              box.addEventListener("change", () => setInstalled(id, box.checked));
              label.append(box, " " + (known?.name ?? id) + (known ? ` (${known.platform === "android" ? "Android" : "iOS"})` : ""));
              row.append(label);
              appList.append(row);
            }
            installedCount.textContent = String(state.installed.length);
          }

          function setInstalled(id, on) {
            state.installed = on ? [...new Set([...state.installed, id])] : state.installed.filter((x) => x !== id);
            store("searchlight.installed", state.installed);
            drawApps();
            search(true);
          }

          /// Impressions and clicks go back with the token of the answer that showed them:
          /// without one the service counts nothing.
          function report(query, events, token) {
            if (!events.length || !token) return;
            fetch("/v1/engagement", {
              method: "POST", keepalive: true, headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ query, token, events }),
            }).catch(() => {});
          }

          /// Arrow keys move between the results' buttons; Escape goes back to the box.
          function onKey(event) {
            const buttons = [...list.querySelectorAll(".action")];
            const at = buttons.indexOf(document.activeElement);
            if (event.key === "ArrowDown" && (document.activeElement === input || at >= 0)) {
              const next = buttons[Math.min(buttons.length - 1, at + 1)];
              if (next) { next.focus(); event.preventDefault(); }
            } else if (event.key === "ArrowUp" && at >= 0) {
              (at === 0 ? input : buttons[at - 1]).focus();
              event.preventDefault();
            } else if (event.key === "Escape" && at >= 0) {
              input.focus();
              event.preventDefault();
            }
          }

          $("search-form").addEventListener("submit", (event) => { event.preventDefault(); search(true); });
          input.addEventListener("input", () => search(false));
          document.addEventListener("keydown", onKey);
          installedOnly.addEventListener("change", () => search(true));
          more.addEventListener("click", loadMore);
          for (const radio of document.querySelectorAll('input[name="platform"]')) {
            radio.addEventListener("change", () => {
              state.platform = radio.value;
              store("searchlight.platform", state.platform);
              search(true);
            });
          }
          $("add-app").addEventListener("submit", (event) => {
            event.preventDefault();
            const field = $("new-app");
            const id = field.value.trim();
            if (id) setInstalled(id, true);
            field.value = "";
          });
          window.addEventListener("popstate", () => { readAddress(); drawApps(); search(true); });
          readAddress();
          drawApps();
          if (input.value.trim()) search(true);
        })();
        """#
}
