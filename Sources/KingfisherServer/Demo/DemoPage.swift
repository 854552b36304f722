import Foundation

/// The demo page `kf serve --demo` answers at `/`: pick a sample or paste a URL, choose a
/// processor chain and a format, see the result and the signed path.
enum DemoPage {
    /// The page, with `samples` offered in its list (HTML-escaped here).
    static func html(samples: [URL]) -> String {
        let options = samples.map { sample -> String in
            let text = escape(sample.absoluteString)
            return "<option value=\"\(text)\">\(text)</option>"
        }.joined(separator: "\n          ")
        return """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>kf serve</title>
        <style>
          body { font: 15px system-ui, sans-serif; margin: 2em; max-width: 60em; }
          label { display: block; margin: .6em 0 .2em; }
          input, select { font: inherit; width: 100%; box-sizing: border-box; }
          button { font: inherit; margin-top: 1em; }
          code { word-break: break-all; }
          #gallery img, #result img { border: 1px solid #ccc; margin: .3em; background: #eee; }
          #error { color: #b00; }
        </style>
        </head>
        <body>
        <h1>kf serve</h1>
        <form id="form">
          <label for="sample">Sample</label>
          <select id="sample">
          \(options)
          </select>
          <label for="url">or a source URL (its host must be allowed)</label>
          <input id="url" placeholder="https://…">
          <label for="spec">Processors</label>
          <input id="spec" value="downsample(200x200)|>round(16)">
          <label for="format">Format</label>
          <select id="format"><option>auto</option><option>webp</option><option>jpeg</option><option>png</option><option>gif</option><option>avif</option><option>jxl</option></select>
          <button type="submit">Show</button>
        </form>
        <p id="error"></p>
        <div id="result"></div>
        <p>Signed path: <code id="path"></code></p>
        <h2>Samples, downsampled</h2>
        <div id="gallery"></div>
        <p id="status">decoded: 0, failed: 0</p>
        <script>
        async function signed(source, spec, format) {
          const query = new URLSearchParams({ source, spec, format });
          const response = await fetch("demo/sign?" + query);
          const text = await response.text();
          if (!response.ok) throw new Error(text);
          return JSON.parse(text).path;
        }
        const counts = { decoded: 0, failed: 0 };
        function count(image) {
          if (image.naturalWidth > 0) { counts.decoded += 1; } else { counts.failed += 1; }
          document.getElementById("status").textContent = "decoded: " + counts.decoded + ", failed: " + counts.failed;
        }
        function addImage(container, path) {
          const image = new Image();
          image.onload = () => count(image);
          image.onerror = () => count(image);
          image.src = path.slice(1);
          image.alt = path;
          container.appendChild(image);
          return image;
        }
        async function show(event) {
          if (event) event.preventDefault();
          const source = document.getElementById("url").value.trim() || document.getElementById("sample").value;
          const spec = document.getElementById("spec").value.trim() || "-";
          const format = document.getElementById("format").value;
          const result = document.getElementById("result");
          document.getElementById("error").textContent = "";
          result.replaceChildren();
          try {
            const path = await signed(source, spec, format);
            document.getElementById("path").textContent = path;
            addImage(result, path);
          } catch (error) {
            document.getElementById("error").textContent = error.message;
          }
        }
        async function gallery() {
          const container = document.getElementById("gallery");
          for (const option of document.getElementById("sample").options) {
            try { addImage(container, await signed(option.value, "downsample(120x120)", "auto")); } catch (error) {}
          }
        }
        document.getElementById("form").addEventListener("submit", show);
        show().then(gallery);
        </script>
        </body>
        </html>
        """
    }

    /// `text` with `&`, `<`, `>` and `"` escaped for HTML.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
