// Tartine: a client-rendered recipe app (the demo's shell site). Every page is the same
// empty shell; this script reads the recipe from the API and writes the page, its Smart
// App Banner, App Links tags and schema.org JSON-LD.
(function () {
  const root = document.getElementById('root');
  const escape = (text) => String(text).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  const meta = (attribute, name, content) => {
    const tag = document.createElement('meta');
    tag.setAttribute(attribute, name);
    tag.content = content;
    document.head.appendChild(tag);
  };
  const match = location.pathname.match(/^\/r\/([a-z-]+)$/);
  if (!match) {
    fetch('/api/recipes.json').then((r) => r.json()).then((list) => {
      document.title = 'Tartine – tarts, galettes and possets';
      root.innerHTML = '<main><h1>Tartine</h1><p>Recipes for tarts, galettes and possets, tested in a home kitchen.</p><ul>'
        + list.map((recipe) => '<li><a href="/r/' + recipe.slug + '">' + escape(recipe.name) + '</a></li>').join('') + '</ul></main>';
    });
    return;
  }
  const slug = match[1];
  fetch('/api/r/' + slug + '.json').then((r) => r.json()).then((recipe) => {
    document.title = recipe.name + ' – Tartine';
    meta('name', 'description', recipe.description);
    meta('name', 'apple-itunes-app', 'app-id=555000111, app-argument=tartine://recipe/' + slug);
    meta('property', 'al:ios:url', 'tartine://recipe/' + slug);
    meta('property', 'al:ios:app_store_id', '555000111');
    meta('property', 'al:ios:app_name', 'Tartine');
    meta('property', 'al:android:url', 'tartine://recipe/' + slug);
    meta('property', 'al:android:package', 'demo.tartine');
    meta('property', 'al:android:app_name', 'Tartine');
    const ld = document.createElement('script');
    ld.type = 'application/ld+json';
    ld.textContent = JSON.stringify({
      '@context': 'https://schema.org', '@type': 'Recipe', name: recipe.name, description: recipe.description,
      recipeIngredient: recipe.ingredients, totalTime: recipe.totalTime,
      aggregateRating: {'@type': 'AggregateRating', ratingValue: recipe.rating, ratingCount: recipe.ratings},
    });
    document.head.appendChild(ld);
    root.innerHTML = '<main><article><h1>' + escape(recipe.name) + '</h1><p>' + escape(recipe.description) + '</p>'
      + '<h2>Ingredients</h2><ul>' + recipe.ingredients.map((item) => '<li>' + escape(item) + '</li>').join('') + '</ul>'
      + '<h2>Method</h2><ol>' + recipe.steps.map((step) => '<li>' + escape(step) + '</li>').join('') + '</ol></article>'
      + '<nav><h2>More recipes</h2><ul>' + recipe.more.map((other) => '<li><a href="/r/' + other.slug + '">' + escape(other.name) + '</a></li>').join('')
      + '</ul></nav></main>';
  });
})();
