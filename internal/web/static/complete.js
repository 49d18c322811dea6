// Suggests tags while a tag search is typed, for the pages' search boxes
// (which work without it): every input with data-complete gets, in the
// datalist it names, the suggestions its JSON endpoint gives for what is
// typed, the most used tags first.
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
        .then(function (tags) {
          if (input.value.trim() !== q) {
            return; // typed on: a newer answer is coming
          }
          list.replaceChildren.apply(list, tags.map(function (tag) {
            var option = document.createElement('option');
            option.value = tag;
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
