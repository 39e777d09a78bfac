extension SearchPage {
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Searchlight</title>
        <link rel="stylesheet" href="/search.css">
        <script src="/search.js" defer></script>
        </head>
        <body>
        <header class="top">
          <h1 class="brand">Searchlight</h1>
          <form id="search-form" role="search" autocomplete="off">
            <label for="q" class="visually-hidden">Search apps and the web</label>
            <input id="q" name="q" type="search" placeholder="Search apps and the web" spellcheck="false"
                   aria-describedby="status" aria-controls="results" autofocus>
          </form>
          <div class="settings">
            <fieldset class="platform">
              <legend>Device</legend>
              <label><input type="radio" name="platform" value="ios" checked> iOS</label>
              <label><input type="radio" name="platform" value="android"> Android</label>
            </fieldset>
            <details id="device-apps">
              <summary>Apps<span class="wide"> on this device</span> (<span id="installed-count">0</span>)</summary>
              <div class="panel">
                <p class="hint">Results open an app when it is on the device. Tick the apps you have:</p>
                <ul id="app-list"></ul>
                <p><label><input type="checkbox" id="installed-only"> Only results my apps open</label></p>
                <form id="add-app">
                  <label for="new-app">App Store id or Android package</label>
                  <input id="new-app" name="app" maxlength="200" spellcheck="false">
                  <button type="submit">Add</button>
                </form>
              </div>
            </details>
          </div>
        </header>
        <main>
          <p id="status" class="status" role="status" aria-live="polite">Type to search apps and their pages.</p>
          <p id="correction" class="correction" hidden></p>
          <div id="error" class="error" role="alert" hidden></div>
          <ol id="results" class="results" aria-label="Results"></ol>
          <p class="more"><button type="button" id="more" hidden>More results</button></p>
          <noscript><p class="error">This page needs JavaScript; the API is at /v1/search.</p></noscript>
        </main>
        </body>
        </html>
        """#
}
