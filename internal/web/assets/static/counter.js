// Counts what is left of a post as it is typed, for the pages' compose
// boxes (which work without it: the server refuses a post too long, and
// keeps the draft): every textarea with data-max-chars gets "N left"
// beside it. It counts as the server counts (retwis.StatusLength, after
// retwis.NormalizeStatus): code points of the text with its line breaks
// made "\n", the spaces ending lines, the blank lines beyond one in a
// row and the blanks around it dropped, each link (as retwis.Entities
// finds them) counting as data-url-chars. The form's content warning
// (its spoiler field) counts too, as retwis.NormalizePost counts it: made
// one line, each run of blanks one space, trimmed.
(function () {
  'use strict';
  var word = /^[\p{L}\p{Nd}\p{M}_]$/u;
  var nameChar = /^[A-Za-z0-9_]$/;
  var urlEnd = /^[\s\p{Cc}"<>]$/u;
  var trailers = '.,:;!?\'"\u2019\u201d';
  var maxTagRunes = 100, maxNameLen = 32, maxURLBytes = 2048;
  var bytes = new TextEncoder();

  // normalize mirrors retwis.NormalizeStatus's line handling.
  function normalize(text) {
    var lines = text.replace(/\r\n?/g, '\n').trim().split('\n');
    var out = [], blank = 0;
    lines.forEach(function (line) {
      line = line.trimEnd();
      blank = line === '' ? blank + 1 : 0;
      if (blank <= 1) {
        out.push(line);
      }
    });
    return out.join('\n');
  }

  function isWord(c) { return c !== undefined && word.test(c); }

  // mentionEnd, tagEnd and urlEndAt return where the mention, tag or
  // link starting at cs[i] ends (an index in cs), or -1 if none does, as
  // retwis.Entities finds them.
  function mentionEnd(cs, i) {
    var end = i + 1;
    while (end < cs.length && nameChar.test(cs[end])) {
      end++;
    }
    var n = end - i - 1;
    return n >= 1 && n <= maxNameLen ? end : -1;
  }

  function tagEnd(cs, i) {
    var end = i + 1, n = 0, letter = false;
    while (end < cs.length && n <= maxTagRunes && isWord(cs[end])) {
      letter = letter || /^\p{L}$/u.test(cs[end]);
      end++;
      n++;
    }
    return letter && n <= maxTagRunes ? end : -1;
  }

  function count(s, c) { return s.split(c).length - 1; }

  function trimURL(link) {
    for (;;) {
      var r = link.slice(-1);
      if (!(trailers.indexOf(r) >= 0 && r !== '' ||
          r === ')' && count(link, '(') < count(link, ')') ||
          r === ']' && count(link, '[') < count(link, ']'))) {
        return link;
      }
      link = link.slice(0, -1);
    }
  }

  function urlEndAt(cs, i) {
    var head = cs.slice(i, i + 8).join('').toLowerCase();
    if (head.indexOf('http://') !== 0 && head.indexOf('https://') !== 0) {
      return -1;
    }
    var end = i, size = 0;
    while (end < cs.length && size <= maxURLBytes && !urlEnd.test(cs[end])) {
      size += bytes.encode(cs[end]).length;
      end++;
    }
    if (size > maxURLBytes) {
      return -1;
    }
    var link = trimURL(cs.slice(i, end).join(''));
    try {
      if (new URL(link).hostname === '') {
        return -1;
      }
    } catch (e) {
      return -1;
    }
    return i + Array.from(link).length;
  }

  // length mirrors retwis.StatusLength.
  function length(text, urlChars) {
    var cs = Array.from(normalize(text));
    var n = 0;
    for (var i = 0; i < cs.length;) {
      var c = cs[i], end = -1, url = false;
      if (i === 0 || cs[i - 1] !== c && !isWord(cs[i - 1])) {
        if (c === '@') {
          end = mentionEnd(cs, i);
        } else if (c === '#') {
          end = tagEnd(cs, i);
        } else if (c === 'h' || c === 'H') {
          end = urlEndAt(cs, i);
          url = true;
        }
      }
      if (end < 0) {
        n++;
        i++;
        continue;
      }
      n += url ? urlChars : end - i;
      i = end;
    }
    return n;
  }

  // warningLength mirrors what retwis.NormalizePost counts of a
  // content warning.
  function warningLength(field, urlChars) {
    return field ? length(field.value.split(/\s+/u).filter(Boolean).join(' '), urlChars) : 0;
  }

  document.querySelectorAll('textarea[data-max-chars]').forEach(function (box, k) {
    var max = Number(box.dataset.maxChars), urlChars = Number(box.dataset.urlChars);
    var warning = box.form && box.form.elements.namedItem('spoiler');
    var counter = document.createElement('span');
    counter.className = 'counter';
    counter.id = 'counter-' + k;
    box.setAttribute('aria-describedby', counter.id);
    box.after(counter);
    function show() {
      var left = max - length(box.value, urlChars) - warningLength(warning, urlChars);
      counter.textContent = left + ' left';
      counter.classList.toggle('over', left < 0);
    }
    box.addEventListener('input', show);
    if (warning) {
      warning.addEventListener('input', show);
    }
    show();
  });
}());

// Tells the server the time zone of a compose form's "Schedule for"
// (the offset of the time chosen, in minutes behind UTC, as
// Date.getTimezoneOffset gives it); without it, the server reads UTC.
document.addEventListener('submit', function (e) {
  var at = e.target.querySelector && e.target.querySelector('input[name=schedule_at]');
  var tz = e.target.querySelector && e.target.querySelector('input[name=tz_offset]');
  if (at && tz && at.value) {
    tz.value = String(new Date(at.value).getTimezoneOffset());
  }
});

// Shows a compose form's rows of pictures one at a time: a row after
// the first shows once the row above it has a file (or it has one);
// without this script, all four show.
document.querySelectorAll('form.compose fieldset.pictures').forEach(function (set) {
  var rows = Array.prototype.slice.call(set.querySelectorAll('.picture-row'));
  function hasFile(row) {
    return row.querySelector('input[type=file]').files.length > 0;
  }
  function reveal() {
    rows.forEach(function (row, i) {
      row.hidden = i > 0 && !hasFile(row) && !hasFile(rows[i - 1]);
    });
  }
  set.addEventListener('change', reveal);
  reveal();
});
