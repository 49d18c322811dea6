// Tells the reader of a timeline (home, global, a tag's) that new posts
// have come, without reloading it: the page's placeholder element names
// the stream (data-stream, the client API's Server-Sent Events, which
// the session cookie opens); each new post it announces that the page
// does not show yet is counted, and the placeholder shows "N new posts"
// as a link that reloads the page. A post deleted before it was read is
// not counted. The notifications the stream brings (the user's own, on
// the home page) raise the unread count of the navigation's
// Notifications link. Without this script the page is as it was.
(function () {
  'use strict';
  var box = document.querySelector('[data-stream]');
  if (!box || !window.EventSource) {
    return;
  }
  var fresh = {}; // ids of the new posts
  var source = new EventSource(box.dataset.stream);

  function show() {
    var n = Object.keys(fresh).length;
    if (n === 0) {
      box.hidden = true;
      return;
    }
    var link = document.createElement('a');
    link.href = location.pathname + location.search;
    link.textContent = n + (n === 1 ? ' new post' : ' new posts');
    box.replaceChildren(link);
    box.hidden = false;
  }

  source.addEventListener('update', function (e) {
    var id = JSON.parse(e.data).id;
    if (!document.getElementById('p' + id)) {
      fresh[id] = true;
      show();
    }
  });
  source.addEventListener('delete', function (e) {
    delete fresh[e.data];
    show();
  });
  var notes = {}; // ids of the notifications counted
  source.addEventListener('notification', function (e) {
    var id = JSON.parse(e.data).id;
    var link = document.querySelector('a[href="/notifications"]');
    if (!link || notes[id]) {
      return;
    }
    notes[id] = true;
    var count = link.querySelector('.unread-count');
    if (!count) {
      count = document.createElement('span');
      count.className = 'unread-count';
      link.append(' ', count);
    }
    count.textContent = (parseInt(count.textContent, 10) || 0) + 1;
  });
  // A stream refused (or gone) is closed for good by the browser, which
  // otherwise reconnects on its own: either way nothing is to be done.
}());
