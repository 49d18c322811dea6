// Suggests while a search is typed, for the pages' search boxes (which
// work without it): every input with data-complete gets, in the datalist
// it names, the suggestions its JSON endpoint gives for what is typed:
// tags (strings, the most used first) or people (objects with a
// username, a display name and a follower count, the most followed
// first).
(function () {
  'use strict';
  if (!window.fetch) {
    return;
  }
  document.querySelectorAll('input[data-complete]').forEach(function (input) {
    var list = input.list;
    if (!list) {
      return;
    }
    var timer = 0;
    var asked = '';
    function suggest() {
      var q = input.value.trim();
      if (q === asked) {
        return;
      }
      asked = q;
      if (q === '') {
        list.replaceChildren();
        return;
      }
      fetch(input.dataset.complete + '?q=' + encodeURIComponent(q), {headers: {Accept: 'application/json'}})
        .then(function (res) { return res.ok ? res.json() : []; })
        .then(function (items) {
          if (input.value.trim() !== q) {
            return; // typed on: a newer answer is coming
          }
          list.replaceChildren.apply(list, items.map(function (item) {
            var option = document.createElement('option');
            if (typeof item === 'string') {
              option.value = item;
            } else {
              option.value = item.username;
              option.label = (item.display_name ? item.display_name + ' · ' : '') + item.followers +
                (item.followers === 1 ? ' follower' : ' followers');
            }
            return option;
          }));
        })
        .catch(function () { asked = ''; }); // ask again on the next key
    }
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(suggest, 150);
    });
  });
}());
